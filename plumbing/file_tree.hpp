// file_tree.hpp — a directory tree copied, and handed to another user: what a server's data
// directory goes through when it is copied from a template or a snapshot.
//
//   copy_tree(snapshot, data);                  // symlinks copied as symlinks, modes kept
//   give_tree(data, nobody.uid, nobody.gid);     // every entry, links themselves (lchown)
//
// Thread safety: stateless.
#pragma once

#include <sys/types.h>

#include <string>

namespace idbench::plumbing {

// A recursive copy of `from` to `to` (which must not exist): symlinks as symlinks, each file's
// and directory's permission bits kept, owned by this process. Throws Error.
void copy_tree(const std::string& from, const std::string& to);

// Gives `path` and everything below it to `uid`:`gid`; a link inside the tree is handed over
// itself, never what it points to. Throws Error naming the entry.
void give_tree(const std::string& path, uid_t uid, gid_t gid);

}  // namespace idbench::plumbing
