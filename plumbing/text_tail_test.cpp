// text_tail_test.cpp — the end of a process's output on one line: its last non-blank lines,
// trimmed, cut to the limit from the front; nothing when it printed nothing.
#include "plumbing/text_tail.hpp"

#include <gtest/gtest.h>

#include <string>

namespace idbench::plumbing {
namespace {

TEST(TextTail, NothingPrintedIsEmpty) {
  EXPECT_EQ(text_tail(""), "");
  EXPECT_EQ(text_tail("\n  \n\t\r\n"), "");
}

TEST(TextTail, TheLastNonBlankLinesTrimmedOnOneLine) {
  EXPECT_EQ(text_tail("a\nb\n\n"), "a | b");
  EXPECT_EQ(text_tail("one\ntwo\n  three \r\n\nfour\n"), "two | three | four");
  EXPECT_EQ(text_tail("x\ny\nz", {.lines = 1, .chars = 400}), "z");
  EXPECT_EQ(text_tail("x\ny", {.lines = 0, .chars = 400}), "");
}

TEST(TextTail, ALongTailKeepsItsEnd) {
  const std::string tail = text_tail(std::string(1000, 'x') + "END");
  EXPECT_EQ(tail, "…" + std::string(397, 'x') + "END");
  EXPECT_EQ(text_tail("abcdef", {.lines = 3, .chars = 6}), "abcdef");  // at the limit: whole
}

TEST(TextTail, TheCutNeverSplitsAUtf8Character) {
  // "é" is two bytes; a cut through it moves past it.
  EXPECT_EQ(text_tail("aé!", {.lines = 3, .chars = 2}), "…!");
  EXPECT_EQ(text_tail("aé!", {.lines = 3, .chars = 3}), "…é!");
}

}  // namespace
}  // namespace idbench::plumbing
