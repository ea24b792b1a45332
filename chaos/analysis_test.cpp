#include "chaos/analysis.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>

#include "chaos/judge.hpp"
#include "chaos/record.hpp"
#include "generators/uuid_format.hpp"

namespace idbench::chaos {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kStart = 1'700'000'000'000 * kMs;

TimedId at(std::uint64_t id, std::int64_t true_ms) {
  return {Id::from_u64(id), kStart + true_ms * kMs, 0, 0, 0};
}

TEST(KsortBound, ZeroWhenIdOrderFollowsTrueOrder) {
  EXPECT_EQ(ksort_bound_ns({at(1, 0), at(2, 1), at(3, 5)}), 0);
}

TEST(KsortBound, LargestGapOfAContradictingPair) {
  // ID 2 issued at 100 ms but ID 5 at 40 ms and ID 9 at 10 ms: 9 vs 2 contradicts by 90 ms.
  EXPECT_EQ(ksort_bound_ns({at(2, 100), at(5, 40), at(9, 10)}), 90 * kMs);
}

TEST(KsortBound, EqualIdsAreDuplicatesNotContradictions) {
  EXPECT_EQ(ksort_bound_ns({at(4, 50), at(4, 10)}), 0);
}

TEST(EmbeddedTime, DecodesLayoutsAndUuidV7AndNothingElse) {
  RunFacts f;
  f.id_time = IdTime::layout;
  f.layout = Layout::parse("twitter", 1'700'000'000'000);
  const std::int64_t ms = 1'700'000'000'123;
  const std::uint64_t id = f.layout->encode({f.layout->tick_of_unix_ms(ms), 5, 9});
  EXPECT_EQ(embedded_unix_ms(Id::from_u64(id), f), ms);

  RunFacts u;
  u.width = IdWidth::bits128;
  u.id_time = IdTime::uuidv7;
  EXPECT_EQ(embedded_unix_ms(Id::from_uuid(uuid_format::v7(ms, 1, 2)), u), ms);
  EXPECT_EQ(embedded_unix_ms(Id::from_uuid(uuid_format::make(1, 2, 4)), u), std::nullopt);

  RunFacts counter;  // no layout: a counter carries no time
  EXPECT_EQ(embedded_unix_ms(Id::from_u64(42), counter), std::nullopt);
}

// A run directory written by hand, as nodes would.
class AnalyseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "idbench-analysis-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
    facts_.run_dir = dir_;
    facts_.start_true_ns = kStart;
    facts_.stop_true_ns = kStart + 1000 * kMs;
    facts_.layout = Layout::parse("ts=41,node=10,seq=12,epoch=0", 1'700'000'000'000);
    facts_.id_time = IdTime::layout;
  }
  void TearDown() override { fs::remove_all(dir_); }

  Record id_at(std::int64_t true_ms, std::uint64_t node, std::uint64_t seq,
               std::int64_t embedded_ms, std::uint32_t call_us = 3) {
    Record r;
    r.lo = facts_.layout->encode({embedded_ms, node, seq});
    r.true_ns = kStart + true_ms * kMs;
    r.call_us = call_us;
    r.kind = static_cast<std::uint16_t>(RecordKind::id);
    return r;
  }
  Record refusal_at(std::int64_t true_ms) {
    Record r;
    r.hi = 200;
    r.true_ns = kStart + true_ms * kMs;
    r.kind = static_cast<std::uint16_t>(RecordKind::refusal);
    r.detail = static_cast<std::uint16_t>(RefusalKind::clock_moved_backwards);
    return r;
  }
  void write(int node, int inc, int thread, const std::vector<Record>& records) {
    std::FILE* f = std::fopen((dir_ + "/" + record_file_name(node, inc, thread)).c_str(), "wb");
    std::fwrite(records.data(), sizeof(Record), records.size(), f);
    std::fclose(f);
  }
  std::int64_t emb(std::int64_t true_ms) { return kStart / kMs + true_ms; }

  std::string dir_;
  RunFacts facts_;
};

TEST_F(AnalyseTest, ClassifiesDuplicatesByWhereTheirCopiesCameFrom) {
  // Node 0 (id 1): IDs at 10 and 20 ms, killed at 500, restarted: re-issues the 10 ms ID.
  // Node 1 (id 1 too, a collision): re-issues the 20 ms ID.
  facts_.nodes = {
      {1,
       {{1, kStart, kStart + 500 * kMs, true}, {1, kStart + 600 * kMs, kStart + 1000 * kMs, false}},
       {},
       {{kStart + 500 * kMs, kStart + 600 * kMs}}},
      {1, {{1, kStart, kStart + 1000 * kMs, false}}, {}, {}}};
  write(0, 0, 0, {id_at(10, 1, 0, emb(10)), id_at(20, 1, 0, emb(20))});
  write(0, 1, 0, {id_at(700, 1, 0, emb(10)), id_at(710, 1, 0, emb(710))});
  write(1, 0, 0, {id_at(25, 1, 0, emb(20)), id_at(900, 1, 0, emb(900))});
  const Analysis a = analyse(facts_, 10);
  EXPECT_EQ(a.ids, 6u);
  EXPECT_EQ(a.duplicates, 2u);
  EXPECT_EQ(a.duplicates_across_restart, 1u);
  EXPECT_EQ(a.duplicates_across_nodes, 1u);
  EXPECT_EQ(a.duplicates_within_process, 0u);
  EXPECT_TRUE(a.self_check_ok);
  // The restarted node went back in ID order: one violation in node0/thread0's stream.
  EXPECT_EQ(a.order_violations, 1u);
  EXPECT_EQ(a.nodes[0].ids_per_incarnation, (std::vector<std::size_t>{2, 2}));
  EXPECT_DOUBLE_EQ(a.nodes[0].down_ms, 100);
  ASSERT_FALSE(a.duplicate_examples.empty());
  EXPECT_EQ(a.timeline.duplicates.size(), 2u);
}

// An external program runs one instance per node thread, each with its own node id: a copy in
// another thread of the same node is another instance's, never "within one process". For a
// built-in variant the threads share one generator: the same copies are within the process.
TEST_F(AnalyseTest, AProgramsThreadsAreInstancesOfTheirOwn) {
  facts_.nodes = {{0, {{2, kStart, kStart + 1000 * kMs, false}}, {}, {}}};
  write(0, 0, 0, {id_at(10, 0, 0, emb(10)), id_at(20, 0, 1, emb(10)), id_at(21, 0, 1, emb(10))});
  write(0, 0, 1, {id_at(11, 0, 0, emb(10)), id_at(30, 0, 5, emb(30))});
  for (const bool program : {true, false}) {
    facts_.program = program;
    const Analysis a = analyse(facts_, 10);
    EXPECT_EQ(a.duplicates, 2u);
    EXPECT_EQ(a.duplicates_within_process, program ? 1u : 2u);  // thread 0 repeats itself
    EXPECT_EQ(a.duplicates_across_instances, program ? 1u : 0u);
    EXPECT_EQ(a.duplicates_across_nodes, 0u);
    EXPECT_TRUE(a.self_check_ok);
  }
}

TEST_F(AnalyseTest, RefusedStretchesAndStallsMakeAvailabilityPausesDoNot) {
  facts_.nodes = {{0,
                   {{1, kStart, kStart + 1000 * kMs, false}},
                   {{kStart + 800 * kMs, kStart + 900 * kMs}},
                   {}}};
  // Refused from 100 ms until the ID at 300 ms; one call blocked 50 ms (a wait); a call that
  // spanned the pause is the pause's, not the generator's.
  write(0, 0, 0,
        {id_at(50, 0, 0, emb(50)), refusal_at(100), refusal_at(200), id_at(300, 0, 0, emb(300)),
         id_at(500, 0, 0, emb(500), 50'000), id_at(905, 0, 0, emb(905), 100'000)});
  const Analysis a = analyse(facts_, 10);
  EXPECT_EQ(a.refusals, 2u);
  EXPECT_EQ(a.refusals_by_kind.at("clock_moved_backwards"), 2u);
  EXPECT_NEAR(a.nodes[0].refused_ms, 200, 0.01);
  // 200 refused + 50 stalled + 5 of the last call after the pause ended.
  EXPECT_NEAR(a.nodes[0].unavailable_ms, 255, 0.01);
  EXPECT_NEAR(a.availability, 1 - 0.255, 1e-6);
  EXPECT_NEAR(a.max_stall_ms, 200, 0.01);
  EXPECT_NEAR(a.nodes[0].down_ms, 100, 0.01);
}

TEST_F(AnalyseTest, SkewAndKsortComeFromTheEmbeddedTimes) {
  facts_.nodes = {{0, {{1, kStart, kStart + 1000 * kMs, false}}, {}, {}},
                  {1, {{1, kStart, kStart + 1000 * kMs, false}}, {}, {}}};
  // Node 1 runs 40 ms ahead: its ID at true 100 ms sorts after node 0's at true 130 ms.
  write(0, 0, 0, {id_at(130, 0, 0, emb(130))});
  write(1, 0, 0, {id_at(100, 1, 0, emb(140))});
  const Analysis a = analyse(facts_, 10);
  EXPECT_NEAR(a.ksort_bound_ms, 30, 0.01);
  EXPECT_EQ(*a.id_skew_min_ms, 0);
  EXPECT_EQ(*a.id_skew_max_ms, 40);
  EXPECT_EQ(a.wrapped_ids, 0u);
}

TEST_F(AnalyseTest, AnIdFromAWrappedClockIsCounted) {
  facts_.nodes = {{0, {{1, kStart, kStart + 1000 * kMs, false}}, {}, {}}};
  write(0, 0, 0, {id_at(10, 0, 0, 5)});  // 1970: a timestamp that wrapped
  EXPECT_EQ(analyse(facts_, 10).wrapped_ids, 1u);
}

// A restart under a regression is judged on what the restarted process did while its clock
// was behind its last ID before the kill. Node 0: last ID at 100 ms, killed, its clock stepped
// back 300 ms at 110 ms, so it is behind until 400 ms. Its restart's first call begins at 250 ms
// (in the window) or at 450 ms (after it: a slow start that never ran behind).
TEST_F(AnalyseTest, ARestartIsMeasuredAgainstTheClockItCameBackTo) {
  facts_.nodes = {
      {0,
       {{1, kStart, kStart + 105 * kMs, true}, {1, kStart + 120 * kMs, kStart + 1000 * kMs, false}},
       {},
       {{kStart + 105 * kMs, kStart + 120 * kMs}}}};
  facts_.events = {
      {kStart + 105 * kMs, 0, "kill -9 node 0", "kill", std::nullopt, std::nullopt},
      {kStart + 110 * kMs, 0, "node 0's clock steps back 300 ms", "step", -300, std::nullopt}};
  write(0, 0, 0, {id_at(50, 0, 0, emb(50)), id_at(100, 0, 0, emb(100))});
  for (const std::int64_t first_ms : {250, 450}) {
    write(0, 1, 0, {id_at(first_ms, 0, 0, emb(first_ms) - 300, 2'000), id_at(900, 0, 0, emb(600))});
    const Analysis a = analyse(facts_, 10);
    ASSERT_EQ(a.nodes[0].restarts.size(), 1u);
    const RestartWindow& r = a.nodes[0].restarts[0];
    EXPECT_EQ(r.incarnation, 1);
    EXPECT_EQ(r.first_call_true_ns, kStart + first_ms * kMs - 2 * kMs);
    EXPECT_EQ(r.behind_until_true_ns, kStart + 400 * kMs);
  }
}

TEST(AnalysePasses, RunOnLoadedRecordsWithoutReadingFiles) {
  RunFacts f;
  f.run_dir = "/nonexistent/never-read";
  f.start_true_ns = kStart;
  f.stop_true_ns = kStart + 100 * kMs;
  f.nodes = {{0, {{1, kStart, kStart + 100 * kMs, false}}, {}, {}}};
  Record r;
  r.lo = 7;
  r.true_ns = kStart + 10 * kMs;
  r.kind = static_cast<std::uint16_t>(RecordKind::id);
  Record later = r;
  later.lo = 8;
  later.true_ns = kStart + 60 * kMs;
  RunRecords records;
  records.nodes = {{IncarnationRecords{{{r, later}}, {-1}, {}, {}}}};
  const Analysis a = analyse(f, records, 10);
  EXPECT_EQ(a.ids, 2u);
  EXPECT_EQ(a.nodes[0].first_id_true_ns, kStart + 10 * kMs);
  EXPECT_EQ(a.nodes[0].last_id_true_ns, kStart + 60 * kMs);
}

// An analysis whose `nodes` each issued IDs from 0 to 1000 ms: evidence across any fault.
Analysis with_duplicates(std::size_t within, std::size_t restart, std::size_t nodes) {
  Analysis a;
  a.duplicates_within_process = within;
  a.duplicates_across_restart = restart;
  a.duplicates_across_nodes = nodes;
  a.duplicates = within + restart + nodes;
  for (int k = 0; k < 2; ++k) {
    NodeFigures n;
    n.node = k;
    n.first_id_true_ns = kStart;
    n.last_id_true_ns = kStart + 1000 * kMs;
    a.nodes.push_back(n);
  }
  a.ids = 1000 + a.duplicates;
  return a;
}

struct Flags {
  bool steps_back = false, restarts = false, same_node_id = false, exhausts = false;
  bool node_field = true, random_bits = false;
};

JudgeSetup setup(const std::string& policy, Flags f, bool persist = false,
                 std::optional<std::int64_t> last = std::nullopt) {
  return JudgeSetup{.policy = policy,
                    .persist = persist,
                    .nodes = 2,
                    .steps_back = f.steps_back,
                    .restarts = f.restarts,
                    .same_node_id = f.same_node_id,
                    .exhausts = f.exhausts,
                    .node_field = f.node_field,
                    .random_bits = f.random_bits,
                    .lifetime_last_unix_ms = last,
                    .start_true_ns = kStart,
                    .faults = {}};
}

TEST(Judge, UnsafeDuplicatesAfterAStepBackAreCaughtNotBroken) {
  const JudgeSetup s = setup("unsafe", {.steps_back = true});
  const fault::Verdict v = judge(with_duplicates(7, 0, 0), s);
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(fault::name_of(v.outcome), "caught");
  EXPECT_FALSE(duplicates_possible_because(s).empty());
}

TEST(Judge, AnyDuplicateWithinAProcessBreaksAPromisingPolicy) {
  for (const char* p : {"refuse", "wait", "bounded-wait", "borrow"}) {
    EXPECT_FALSE(judge(with_duplicates(1, 0, 0), setup(p, {.steps_back = true})).passed()) << p;
  }
}

TEST(Judge, ARestartWithoutTheMarkIsExpectedToDuplicateWithItNot) {
  const Flags restart{.steps_back = true, .restarts = true};
  EXPECT_TRUE(judge(with_duplicates(0, 5, 0), setup("refuse", restart)).passed());
  EXPECT_FALSE(judge(with_duplicates(0, 5, 0), setup("refuse", restart, true)).passed());
}

TEST(Judge, ACollisionIsCaughtButDistinctNodesMustNeverCollide) {
  EXPECT_TRUE(judge(with_duplicates(0, 0, 9), setup("refuse", {.same_node_id = true})).passed());
  EXPECT_FALSE(judge(with_duplicates(0, 0, 9), setup("refuse", {})).passed());
}

// A program promises unique IDs within each instance and across its restarts; across its
// instances (distinct node ids) only when its IDs are described as carrying a node id or
// random bits. Either way a repeat between two instances is never "within one instance".
TEST(Judge, AProgramsDuplicatesAcrossItsInstancesAreNotWithinOne) {
  Analysis a = with_duplicates(0, 0, 0);
  a.duplicates_across_instances = 9;
  a.duplicates = 9;
  JudgeSetup s = setup("refuse", {.steps_back = true, .node_field = false}, true);
  s.program = true;
  s.nodes = 1;
  s.threads = 2;
  fault::Verdict v = judge(a, s);
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(fault::name_of(v.outcome), "caught");
  EXPECT_EQ(v.evidence.find("within"), std::string::npos) << v.evidence;
  EXPECT_NE(v.evidence.find("instances"), std::string::npos) << v.evidence;
  s.node_field = true;
  v = judge(a, s);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.evidence, "BROKEN: 9 duplicates across program instances with distinct node ids");
  a = with_duplicates(4, 0, 0);
  EXPECT_EQ(judge(a, s).evidence, "BROKEN: 4 duplicates within one program instance");
}

TEST(Judge, ASharedNodeIdDoesNotMatterToRandomBits) {
  // uuidv7 under worker-collision: no node field, so random bits still keep nodes apart.
  const JudgeSetup s =
      setup("refuse", {.same_node_id = true, .node_field = false, .random_bits = true});
  const fault::Verdict v = judge(with_duplicates(0, 0, 1), s);
  EXPECT_FALSE(v.passed());
  EXPECT_TRUE(duplicates_possible_because(s).empty());
}

TEST(Judge, ExhaustionMustRefuseNamingTheLastDate) {
  const std::int64_t last = 3'487'858'230'208;  // twitter: 2080-07-10T17:30:30.208Z
  Analysis a = with_duplicates(0, 0, 0);
  a.refusals_by_kind["epoch_exhausted"] = 3;
  a.refusal_messages["epoch_exhausted"] =
      "… its last representable time is 2080-07-10T17:30:30.208Z";
  const Flags exhausts{.exhausts = true};
  EXPECT_TRUE(judge(a, setup("refuse", exhausts, false, last)).passed());
  a.refusal_messages["epoch_exhausted"] = "clock out of range";
  EXPECT_FALSE(judge(a, setup("refuse", exhausts, false, last)).passed());
  EXPECT_FALSE(judge(with_duplicates(0, 0, 0), setup("refuse", exhausts, false, last)).passed());
}

// A node that issued nothing (cas refusing a bad mark for the whole run) once made
// the cell "kept" with availability 50 %. Nothing issued is no evidence, and fails.
TEST(Judge, ANodeThatIssuedNothingIsNoEvidenceAndFails) {
  Analysis a = with_duplicates(0, 0, 0);
  a.nodes[1].first_id_true_ns.reset();
  a.nodes[1].last_id_true_ns.reset();
  const JudgeSetup s = setup("refuse", {.restarts = true}, true);
  const fault::Verdict v = judge(a, s);
  EXPECT_FALSE(evidence_gaps(a, s).empty());
  EXPECT_FALSE(v.passed()) << "never kept without evidence";
  EXPECT_EQ(v.evidence, "no evidence: node 1 issued no ID");
}

// A passing verdict needs IDs before and after every fault, from every node.
TEST(Judge, IdsMustBeIssuedBeforeAndAfterEveryFault) {
  JudgeSetup s = setup("refuse", {.steps_back = true});
  s.faults = {{kStart + 400 * kMs, "NTP steps every clock back 200 ms"}};
  EXPECT_TRUE(judge(with_duplicates(0, 0, 0), s).passed());
  Analysis stopped_early = with_duplicates(0, 0, 0);
  stopped_early.nodes[0].last_id_true_ns = kStart + 300 * kMs;  // nothing after the step
  const fault::Verdict v = judge(stopped_early, s);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.evidence,
            "no evidence: node 0 issued no ID after +0.40 s (NTP steps every clock back 200 ms)");
  Analysis started_late = with_duplicates(0, 0, 0);
  started_late.nodes[1].first_id_true_ns = kStart + 500 * kMs;  // nothing before it
  EXPECT_FALSE(judge(started_late, s).passed());
}

// A restarted process that made its first call after its clock had caught up with its last
// ID never ran behind: whatever it issued, the restart under a regression was not tested (a
// Node program slower to start than a 1 s regression was "kept").
TEST(Judge, ARestartThatNeverRanBehindIsNoEvidence) {
  JudgeSetup s = setup("refuse", {.steps_back = true, .restarts = true}, true);
  Analysis a = with_duplicates(0, 0, 0);
  a.nodes[0].restarts = {{1, kStart + 300 * kMs, kStart + 400 * kMs}};
  EXPECT_TRUE(judge(a, s).passed());
  a.nodes[0].restarts = {{1, kStart + 450 * kMs, kStart + 400 * kMs}};
  fault::Verdict v = judge(a, s);
  EXPECT_FALSE(v.passed()) << "kept without a restart that ran behind";
  EXPECT_EQ(v.evidence,
            "no evidence: node 0 (incarnation 1) made its first call at +0.45 s, after its clock "
            "had caught up with its last ID before the restart (+0.40 s): it never ran behind");
  a.nodes[0].restarts = {{1, std::nullopt, kStart + 400 * kMs}};
  v = judge(a, s);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.evidence, "no evidence: node 0 (incarnation 1) made no call after its restart");
}

TEST(Judge, NoNodesIsNoEvidence) { EXPECT_FALSE(judge(Analysis{}, setup("refuse", {})).passed()); }

TEST(Judge, ABrokenPromiseOutranksMissingEvidenceInTheSummary) {
  Analysis a = with_duplicates(2, 0, 0);
  a.nodes[1].first_id_true_ns.reset();
  a.nodes[1].last_id_true_ns.reset();
  const JudgeSetup s = setup("refuse", {});
  const fault::Verdict v = judge(a, s);
  EXPECT_TRUE(v.evidence.starts_with("BROKEN")) << v.evidence;
  EXPECT_FALSE(evidence_gaps(a, s).empty());
}

}  // namespace
}  // namespace idbench::chaos
