// link_partition_test.cpp — the replication link's relay and its partition on plain loopback
// sockets (skipped without socat): bytes pass the relay; after the partition what the master
// sends never reaches the replica, and the drop ends the link with nothing more delivered;
// the control, with no partition, sees the same bytes arrive (so the check can fail); a verb
// the nemesis does not play fails.
#include "real/link_partition.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "plumbing/free_ports.hpp"

namespace idbench::real {
namespace {

bool socat_installed() { return !plumbing::find_program("socat").empty(); }

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

// A socket of the test, closed with it.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// What `fd` delivers within `ms`: the bytes, "" on nothing, "<eof>" when the peer closed.
std::string read_within(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, ms) <= 0) return "";
  char buf[256];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  return n <= 0 ? "<eof>" : std::string(buf, static_cast<std::size_t>(n));
}

// A master listening on a free loopback port, the relay to it, and a replica connected through
// the relay: the master's end of that connection accepted.
struct Linked {
  Linked() {
    const int port = plumbing::free_loopback_ports(1, "the test's master").front();
    listener.fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(listener.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    const sockaddr_in m = loopback(port);
    if (::bind(listener.fd, reinterpret_cast<const sockaddr*>(&m), sizeof m) != 0 ||
        ::listen(listener.fd, 4) != 0) {
      throw std::runtime_error("the test's master cannot listen");
    }
    relay = std::make_unique<LinkRelay>(LinkRelay::tcp(port));
    replica.fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const sockaddr_in r = loopback(relay->port());
    if (::connect(replica.fd, reinterpret_cast<const sockaddr*>(&r), sizeof r) != 0) {
      throw std::runtime_error("the replica cannot reach the relay");
    }
    master.fd = ::accept(listener.fd, nullptr, nullptr);
  }
  void send(const std::string& bytes) const {
    ASSERT_EQ(::write(master.fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  Fd listener, replica, master;
  std::unique_ptr<LinkRelay> relay;
};

TEST(LinkPartitionNemesis, WhatTheMasterSendsAfterThePartitionNeverReachesTheReplica) {
  if (!socat_installed()) GTEST_SKIP() << "socat is not installed";
  Linked l;
  ASSERT_GE(l.master.fd, 0);
  l.send("before");
  EXPECT_EQ(read_within(l.replica.fd, 5000), "before");
  fault::Timeline t("test", "partition", nullptr);
  LinkPartitionNemesis cut(*l.relay);
  EXPECT_EQ(cut.kind(), "link");
  cut.invoke({.op = "partition", .kind = "fault", .what = "the link cut"}, t);
  l.send("after");
  EXPECT_EQ(read_within(l.replica.fd, 500), "");
  cut.invoke({.op = "drop", .kind = "harness", .what = "the relay ended"}, t);
  EXPECT_FALSE(l.relay->running());
  EXPECT_EQ(read_within(l.replica.fd, 5000), "<eof>");  // the link ends; "after" is lost
  ASSERT_EQ(t.history().size(), 2u);
  EXPECT_EQ(t.history()[0].what, "the link cut");
  EXPECT_EQ(t.history()[1].kind, "harness");
}

// The control: the same bytes, no partition, arrive. Without it the test above could pass on
// a relay that never delivers anything.
TEST(LinkPartitionNemesis, WithNoPartitionTheSameBytesArrive) {
  if (!socat_installed()) GTEST_SKIP() << "socat is not installed";
  Linked l;
  ASSERT_GE(l.master.fd, 0);
  l.send("before");
  EXPECT_EQ(read_within(l.replica.fd, 5000), "before");
  l.send("after");
  EXPECT_EQ(read_within(l.replica.fd, 5000), "after");
}

TEST(LinkPartitionNemesis, AVerbItDoesNotPlayFails) {
  if (!socat_installed()) GTEST_SKIP() << "socat is not installed";
  Linked l;
  fault::Timeline t("test", "partition", nullptr);
  LinkPartitionNemesis cut(*l.relay);
  EXPECT_THROW(cut.invoke({.op = "pause", .kind = "fault", .what = "x"}, t), std::logic_error);
  EXPECT_TRUE(t.history().empty());
}

}  // namespace
}  // namespace idbench::real
