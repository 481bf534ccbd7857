// The fast jitter predictor (models/jitsim.hpp): jitSim's worked examples (De & Mann,
// Figures 2, 3 and 6), start policies, the tree barrier's closed form, bad inputs.
#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "models/jitsim.hpp"
#include "models/jitter.hpp"
#include "simulator/rng.hpp"

using namespace clustersim;
using namespace clustersim::jitter;

namespace CLUSTERSIM_TEST_FILE {

JitterTrace make_trace(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& tuples,
                       const std::string& name = "test") {
    JitterTrace t;
    t.source = name;
    for (const auto& [j, c] : tuples) {
        t.jitter.push_back(j);
        t.compute.push_back(c);
    }
    return t;
}

// jitSim Figure 2's ten tuples <jitter, cycles_to_next_jitter>. Layout of one pass (845
// cycles): tuple i = jitter then compute:
//   0: J [0,10)    C [10,60)      5: J [270,290) C [290,590)
//   1: J [60,65)   C [65,95)      6: J [590,600) C [600,620)
//   2: J [95,120)  C [120,140)    7: J [620,680) C [680,740)
//   3: J [140,145) C [145,155)    8: J [740,745) C [745,765)
//   4: J [155,170) C [170,270)    9: J [765,775) C [775,845)
JitterTrace figure2() {
    return make_trace({{10, 50},
                       {5, 30},
                       {25, 20},
                       {5, 10},
                       {15, 100},
                       {20, 300},
                       {10, 20},
                       {60, 60},
                       {5, 20},
                       {10, 70}},
                      "figure2");
}

// A trace without jitter: one tuple (0, huge compute).
JitterTrace quiet() {
    return make_trace({{0, 1'000'000'000'000ULL}}, "quiet");
}

// A longer trace: 20,000 tuples, compute 2,000–40,000 cycles, jitter 1–60 cycles and one
// event in 50 of 3,000–8,000 cycles. Deterministic.
JitterTrace noisy() {
    Rng rng(42);
    JitterTrace t;
    t.source = "noisy";
    for (int i = 0; i < 20000; ++i) {
        const bool big = rng.below(50) == 0;
        t.jitter.push_back(big ? 3000 + rng.below(5001) : 1 + rng.below(60));
        t.compute.push_back(2000 + rng.below(38001));
    }
    return t;
}

PredictConfig explicit_config(std::uint64_t work, std::vector<std::uint64_t> indices) {
    PredictConfig c;
    c.work = work;
    c.phases = 1;
    c.start.policy = StartPolicy::Explicit;
    c.start.indices = std::move(indices);
    c.per_task = true;
    c.threads = 1;
    return c;
}

void expect_totals(const TaskTotals& t, std::uint64_t compute, std::uint64_t jitter,
                   std::uint64_t wait, std::uint64_t total, const char* what) {
    EXPECT_EQ(t.compute, compute) << what;
    EXPECT_EQ(t.jitter, jitter) << what;
    EXPECT_EQ(t.wait, wait) << what;
    EXPECT_EQ(t.total, total) << what;
}

BarrierSpec tree(std::uint64_t send, std::uint64_t recv, std::uint64_t net, std::uint64_t shm,
                 std::uint32_t cores_per_node) {
    BarrierSpec b;
    b.kind = BarrierSpec::Kind::Tree;
    b.arity = 2;
    b.send = send;
    b.recv = recv;
    b.network_latency = net;
    b.shm_latency = shm;
    b.cores_per_node = cores_per_node;
    return b;
}

TEST(JitterPredict, Figure2And3TwoTasksIdealBarrier) {
    const JitterTrace trace = figure2();
    const Timeline tl(trace);
    // Node 1 starts at tuple 0's compute (position 10): 50 + 30 + 20 compute, jitter 5 + 25.
    std::uint32_t hint = 0;
    auto s = tl.run(tl.compute_start(0), 100, hint);
    EXPECT_EQ(s.elapsed, 130u);
    EXPECT_EQ(s.jitter, 30u);
    // Node 2 starts at tuple 6's compute (600): 20 + 60 + 20 compute, jitter 60 + 5.
    s = tl.run(tl.compute_start(6), 100, hint);
    EXPECT_EQ(s.elapsed, 165u);
    EXPECT_EQ(s.jitter, 65u);

    // Figure 3: at the barrier node 1 waits 165 - 130 = 35 cycles; the phase ends at 165.
    const Prediction p = predict({&tl}, 2, explicit_config(100, {0, 6}));
    ASSERT_EQ(p.phase_cycles.size(), 1u);
    EXPECT_EQ(p.phase_cycles[0], 165u);
    EXPECT_DOUBLE_EQ(p.mean_phase, 165.0);
    EXPECT_EQ(p.noiseless_phase, 100u);
    EXPECT_DOUBLE_EQ(p.slowdown_percent, 65.0);
    ASSERT_EQ(p.per_task.size(), 2u);
    expect_totals(p.per_task[0], 100, 30, 35, 165, "task 0");
    expect_totals(p.per_task[1], 100, 65, 0, 165, "task 1");
    // Coverage: both passed through 165 of the 845 cycles of the trace.
    EXPECT_DOUBLE_EQ(p.coverage_percent, 100.0 * 165 / 845);
    EXPECT_DOUBLE_EQ(p.coverage_max_percent, 100.0 * 165 / 845);

    // A tree barrier whose sends, receives and messages cost nothing is the ideal barrier.
    PredictConfig c = explicit_config(100, {0, 6});
    c.barrier = tree(0, 0, 0, 0, 1);
    const Prediction q = predict({&tl}, 2, c);
    EXPECT_EQ(q.phase_cycles, p.phase_cycles);
    expect_totals(q.per_task[0], 100, 30, 35, 165, "tree task 0");
    expect_totals(q.per_task[1], 100, 65, 0, 165, "tree task 1");

    // Second phase, ideal barrier: both restart at 165. Task 0 at position 10 + 165 = 175
    // (tuple 4's compute, 95 left to 270): 95, jitter 20 [270,290), 5 → 120 (jitter 20).
    // Task 1 at 600 + 165 = 765 (tuple 9's jitter): jitter 10, compute 70 to 845 = 0 (wrap),
    // jitter 10 [0,10), compute 30 → 120 (jitter 20). Phase 2 = 120.
    c = explicit_config(100, {0, 6});
    c.phases = 2;
    const Prediction r = predict({&tl}, 2, c);
    EXPECT_EQ(r.phase_cycles, (std::vector<std::uint64_t>{165, 120}));
    expect_totals(r.per_task[0], 200, 50, 35, 285, "2 phases, task 0");
    expect_totals(r.per_task[1], 200, 85, 0, 285, "2 phases, task 1");
}

// jitSim Figure 6 (and Garg & De's Figure 2): seven tasks in a complete binary tree, root
// task 0 (the paper's "Task 1"), children of i are 2i+1 and 2i+2. The paper's figure gives
// the structure only, so the trace and costs are ours: the Figure 2 trace, one phase of 100
// cycles, send = recv = 5 cycles, two tasks per node (nodes {0,1} {2,3} {4,5} {6}): the
// message 0↔1 goes through shared memory (2 cycles), every other one over the network (10).
// Start indices (tuple → start position): task 0: 0 → 10, 1: 6 → 600, 2: 4 → 170,
// 3: 1 → 65, 4: 7 → 680, 5: 5 → 290, 6: 8 → 745. Position = start + time, mod 845.
//
// Post-barrier (root's start message goes down), then compute:
//  task 0: send→1 [0,5) pos 10–15 no jitter, arrives 5+2 = 7; send→2 [5,10), arrives 20;
//          compute at t=10, pos 20: 40 to 60, J 5 [60,65), 30 to 95, J 25 [95,120), 20 to 140,
//          J 5, 10 to 155 (= 100) → ends t = 10 + 135 = 145, jitter 35.
//  task 1: waits 0→7; recv pos 607 [7,12); send→3 pos 612 [12,17), arrives 27; send→4 at pos
//          617: 3 cycles to 620, J 60 [620,680), 2 → t = 82 (jitter 60), arrives 92; compute
//          at pos 682: 58 to 740, J 5, 20 to 765, J 10, 22 → t = 82 + 115 = 197 (jitter 15).
//  task 2: waits 0→20; recv pos 190 [20,25); send→5 [25,30) arrives 40; send→6 [30,35)
//          arrives 45; compute pos 205: 65 to 270, J 20, 35 → t = 35 + 120 = 155 (jitter 20).
//  task 3: waits 0→27; recv at pos 92: 3 to 95, J 25 [95,120), 2 → t = 27 + 30 = 57 (jitter
//          25); compute pos 122: 18, J 5, 10, J 15, 72 → t = 57 + 120 = 177 (jitter 20).
//  task 4: waits 0→92; recv at pos 772 (in tuple 9's jitter, 3 left): t = 92 + 8 = 100
//          (jitter 3); compute pos 780: 65 to 845 (wrap), J 10 [0,10), 35 → t = 210 (jitter 10).
//  task 5: waits 0→40; recv pos 330 → 45; compute pos 335 in [290,590) → t = 145, no jitter.
//  task 6: waits 0→45; recv pos 790 → 50; compute pos 795: 50 to 845, J 10, 50 → t = 160
//          (jitter 10).
// Pre-barrier, leaves first:
//  task 6: send at pos 160+745 = 905 ≡ 60: J 5 [60,65), 5 → t = 170 (jitter 5), arrives 180.
//  task 5: send pos 435 → 150, arrives 160.   task 4: send pos 890 ≡ 45 → 215, arrives 225.
//  task 3: send pos 242 → 182, arrives 192.
//  task 2 (free at 155): waits 155→160 for 5; recv → 165; waits 165→180 for 6; recv → 185;
//          send → 190, arrives at 0 at 200.
//  task 1 (free at 197): 3's message is there (192); recv → 202; waits 202→225 for 4; recv →
//          230; send → 235, arrives (shm) 237.
//  task 0 (free at 145): waits 145→237 for 1; recv → 242; 2's message is there (200); recv
//          → 247. The barrier is over at 247: phase time 247, and every task's total is 247.
// Totals: compute = 100 + (messages) × 5: task 0: 4 messages (2 sends down, 2 receives up)
// → 120; tasks 1, 2: 6 → 130; leaves: 2 → 110. Jitter as above: 35, 60+15, 20, 25+20, 3+10,
// 0, 10+5. Wait = 247 − compute − jitter: 92, 42, 97, 92, 124, 137, 122.
TEST(JitterPredict, Figure6SevenTaskTree) {
    const JitterTrace trace = figure2();
    const Timeline tl(trace);
    PredictConfig c = explicit_config(100, {0, 6, 4, 1, 7, 5, 8});
    c.barrier = tree(5, 5, 10, 2, 2);
    const Prediction p = predict({&tl}, 7, c);
    ASSERT_EQ(p.phase_cycles, (std::vector<std::uint64_t>{247}));
    ASSERT_EQ(p.per_task.size(), 7u);
    expect_totals(p.per_task[0], 120, 35, 92, 247, "task 0 (root)");
    expect_totals(p.per_task[1], 130, 75, 42, 247, "task 1");
    expect_totals(p.per_task[2], 130, 20, 97, 247, "task 2");
    expect_totals(p.per_task[3], 110, 45, 92, 247, "task 3");
    expect_totals(p.per_task[4], 110, 13, 124, 247, "task 4");
    expect_totals(p.per_task[5], 110, 0, 137, 247, "task 5");
    expect_totals(p.per_task[6], 110, 15, 122, 247, "task 6");
    // Noiseless (see TreeClosedForm, N = 7 with an shm edge 0–1): down: 0 sends at 5 (→1 at
    // 7) and 10 (→2 at 20); 1: recv 12, sends 17 (→3 at 27), 22 (→4 at 32), computes to 122;
    // 2: recv 25, sends 30 (→5 at 40), 35 (→6 at 45), computes to 135; leaves start 32, 37,
    // 45, 50 and end 132, 137, 145, 150. Up: leaves send: arrive 147, 152, 160, 165.
    // 1: recv 152, recv 157, send 162 → 0 at 164. 2: recv 165, recv 170, send 175 → 0 at 185.
    // 0 (free at 110): recv 169, recv 190. Noiseless phase 190.
    EXPECT_EQ(p.noiseless_phase, 190u);
    EXPECT_DOUBLE_EQ(p.slowdown_percent, 100.0 * (247.0 / 190.0 - 1.0));
}

// With zero jitter the tree's phase time is the closed form, hand-derived with work w, send
// s, receive r, one network latency L on every edge (one task per node):
//   N = 1: w (no messages).
//   N = 2: 0 sends [0,s), 1 receives at s+L → s+L+r, computes → s+L+r+w, sends → 2s+L+r+w,
//          0 receives at 2s+2L+r+w → θ = w + 2s + 2L + 2r.
//   N = 3: leaves start at s+L+r and 2s+L+r; their messages reach 0 at 2s+2L+r+w and
//          3s+2L+r+w; 0 (free at 2s+w) receives → 2s+2L+2r+w, then the second at
//          max(2s+2L+2r+w, 3s+2L+r+w) → θ = w + 2s + 2L + 2r + max(s, r).
//   N = 7: 1 and 2 take N = 3's place one level down; 1's message reaches 0 at
//          4s+4L+3r+w+max(s,r), 2's one send later: θ = w + 4s + 4L + 4r + 2·max(s, r).
//   N = 8: task 7 (child of 3) adds a level: 3 receives 7 at 4s+4L+3r+w → 4s+4L+4r+w, sends;
//          1 receives 3 → 5s+5L+5r+w, 4 → +r, sends; 0 receives 1 → 6s+6L+7r+w, 2 (there
//          since 5s+4L+3r+w+max(s,r)) → θ = w + 6s + 6L + 8r.
// w = 1000, s = 30, r = 20, L = 100: 1000, 1300, 1330, 1660, 1940.
TEST(JitterPredict, TreeClosedFormNoJitter) {
    const JitterTrace trace = quiet();
    const Timeline tl(trace);
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> cases = {
        {1, 1000}, {2, 1300}, {3, 1330}, {7, 1660}, {8, 1940}};
    for (const auto& [n, theta] : cases) {
        PredictConfig c;
        c.work = 1000;
        c.phases = 4;
        c.barrier = tree(30, 20, 100, 100, 1);
        c.start.policy = StartPolicy::Unsynchronized;
        const Prediction p = predict({&tl}, n, c);
        EXPECT_EQ(p.noiseless_phase, theta) << n;
        EXPECT_EQ(p.phase_cycles, std::vector<std::uint64_t>(4, theta)) << n;
        EXPECT_EQ(p.slowdown_percent, 0.0) << n;
    }
    // N = 3 with two tasks per node: 0–1 through shared memory (S = 2), 0–2 over the network;
    // s = 20, r = 30: 1's message reaches 0 at 2s+2S+r+w = 1074, 2's at 3s+2L+r+w = 1290;
    // 0 receives → max(2s+w, 1074) + r = 1104, then max(1104, 1290) + r = 1320. (All over
    // the network: w + 2s + 2L + 2r + max(s, r) = 1330.)
    PredictConfig c;
    c.work = 1000;
    c.phases = 3;
    c.start.policy = StartPolicy::Synchronized;
    c.barrier = tree(20, 30, 100, 2, 2);
    EXPECT_EQ(predict({&tl}, 3, c).noiseless_phase, 1320u);
    EXPECT_EQ(predict({&tl}, 3, c).phase_cycles, std::vector<std::uint64_t>(3, 1320));
    c.barrier = tree(20, 30, 100, 100, 1);
    EXPECT_EQ(predict({&tl}, 3, c).noiseless_phase, 1330u);

    // N = 1000, no CPU cost, latencies only: θ = w + 2·(largest latency sum root → task).
    // The deepest tasks (511…999) are at depth 9. Eight tasks per node: tasks 0…7 share node
    // 0; a task p ≥ 7 and its children 2p+1, 2p+2 are always on different nodes. The path
    // 0 → 2 → 6 → 14 → … has 0–2 and 2–6 in node 0 and then 7 network hops (14 is on node
    // 1); task 8's subtree reaches depth 9 (8·64+63 = 575 … 638 < 1000) with 2 shm + 7 network
    // hops, and no depth-9 path has fewer shm hops than 2 (depth-1 and -2 tasks are on node 0
    // with the root). θ = 1000 + 2·(2·7 + 7·100) = 2428. One task per node: 1000 + 2·9·100.
    c = PredictConfig{};
    c.work = 1000;
    c.phases = 2;
    c.barrier = tree(0, 0, 100, 7, 8);
    Prediction p = predict({&tl}, 1000, c);
    EXPECT_EQ(p.noiseless_phase, 2428u);
    EXPECT_EQ(p.phase_cycles, std::vector<std::uint64_t>(2, 2428));
    c.barrier = tree(0, 0, 100, 7, 1);
    p = predict({&tl}, 1000, c);
    EXPECT_EQ(p.noiseless_phase, 2800u);
    EXPECT_EQ(p.phase_cycles, std::vector<std::uint64_t>(2, 2800));
}

TEST(JitterPredict, NoJitterNoSlowdownForEveryPolicyAndBarrier) {
    // A trace whose jitter is all zero (many tuples, so start positions differ).
    std::vector<std::pair<std::uint64_t, std::uint64_t>> tuples;
    for (int i = 0; i < 100; ++i) tuples.push_back({0, 5000 + 37 * static_cast<std::uint64_t>(i)});
    const JitterTrace trace = make_trace(tuples, "zero-jitter");
    const Timeline tl(trace);
    const BarrierSpec barriers[] = {BarrierSpec{}, tree(30, 20, 500, 50, 4)};
    for (const BarrierSpec& b : barriers)
        for (StartPolicy pol : {StartPolicy::Unsynchronized, StartPolicy::Synchronized,
                                StartPolicy::Coscheduled, StartPolicy::Explicit}) {
            PredictConfig c;
            c.work = 20000;
            c.phases = 5;
            c.barrier = b;
            c.start.policy = pol;
            c.start.window_high = 9000;
            c.start.window_low = 1000;
            c.start.indices = {3, 50, 99};
            c.per_task = true;
            for (std::uint64_t n : {1, 5, 100, 3000}) {
                const Prediction p = predict({&tl}, n, c);
                EXPECT_EQ(p.slowdown_percent, 0.0) << to_string(pol) << " n=" << n;
                EXPECT_EQ(p.mean_phase, static_cast<double>(p.noiseless_phase));
                for (const TaskTotals& t : p.per_task) EXPECT_EQ(t.jitter, 0u);
            }
        }
}

TEST(JitterPredict, SynchronizedSameSlowdownAtEveryTaskCount) {
    const JitterTrace trace = noisy();
    const Timeline tl(trace);
    PredictConfig c;
    c.work = 250000;
    c.phases = 20;
    c.start.policy = StartPolicy::Synchronized;
    c.start.seed = 7;
    const Prediction one = predict({&tl}, 1, c);
    EXPECT_GT(one.slowdown_percent, 0.0);
    for (std::uint64_t n : {7, 64, 1000, 4096}) {
        const Prediction p = predict({&tl}, n, c);
        EXPECT_EQ(p.slowdown_percent, one.slowdown_percent) << n;
        EXPECT_EQ(p.phase_cycles, one.phase_cycles) << n;
    }
}

TEST(JitterPredict, UnsynchronizedSlowdownGrowsWithTasks) {
    const JitterTrace trace = noisy();
    const Timeline tl(trace);
    PredictConfig c;
    c.work = 250000;
    c.phases = 30;
    c.start.policy = StartPolicy::Unsynchronized;
    c.start.seed = 11;
    double last = -1;
    for (std::uint64_t n : {1, 32, 1024, 32768}) {
        const Prediction p = predict({&tl}, n, c);
        EXPECT_GE(p.slowdown_percent, last) << n;
        last = p.slowdown_percent;
    }
    // With every task meeting its own jitter, 32768 tasks are much slower than one: in 250,000
    // cycles a task meets about 9 events, one in 50 a big one (3,000–8,000 cycles); with
    // thousands of tasks the slowest nearly always meets several big ones.
    PredictConfig s = c;
    s.start.policy = StartPolicy::Synchronized;
    EXPECT_GT(last, predict({&tl}, 32768, s).slowdown_percent);
}

// Co-scheduled start: windows of 90 high + 10 low cycles from position 0; the trace keeps its
// jitter in the low windows: compute [100m, 100m+90) split at 100m+40 by a zero jitter,
// jitter [100m+90, 100m+100), ten periods (1000 cycles).
TEST(JitterPredict, CoscheduledStartsAtWindowStarts) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> tuples;
    for (int m = 0; m < 10; ++m) {
        tuples.push_back({m == 0 ? 0 : 10, 40});
        tuples.push_back({0, 50});
    }
    tuples.push_back({10, 0});
    const JitterTrace trace = make_trace(tuples, "cosched");
    const Timeline tl(trace);
    ASSERT_EQ(tl.length(), 1000u);
    PredictConfig c;
    c.work = 90;
    c.phases = 1;
    c.per_task = true;
    c.start.policy = StartPolicy::Coscheduled;
    c.start.window_high = 90;
    c.start.window_low = 10;
    c.start.seed = 3;
    std::vector<bool> seen(10, false);
    for (std::uint64_t k = 0; k < 200; ++k) {
        const std::uint64_t pos = start_position(tl, c.start, k);
        EXPECT_EQ(pos % 100, 0u) << k;
        ASSERT_LT(pos, 1000u);
        seen[pos / 100] = true;
    }
    for (int m = 0; m < 10; ++m) EXPECT_TRUE(seen[m]) << m;  // random over all windows
    // Every task runs its whole quantum inside one high-priority window: no jitter at all.
    const Prediction p = predict({&tl}, 200, c);
    EXPECT_EQ(p.phase_cycles, std::vector<std::uint64_t>{90});
    for (const TaskTotals& t : p.per_task) EXPECT_EQ(t.jitter, 0u);
    // Unsynchronized tasks also start at 100m + 40 and meet the low window's jitter.
    c.start.policy = StartPolicy::Unsynchronized;
    EXPECT_EQ(predict({&tl}, 200, c).phase_cycles, std::vector<std::uint64_t>{100});
}

TEST(JitterPredict, SameResultWhateverTheThreadCount) {
    const JitterTrace trace = noisy();
    const Timeline tl(trace);
    for (const BarrierSpec& b : {BarrierSpec{}, tree(300, 200, 4000, 500, 8)}) {
        PredictConfig c;
        c.work = 100000;
        c.phases = 4;
        c.barrier = b;
        c.start.seed = 5;
        c.per_task = true;
        c.threads = 1;
        const Prediction a = predict({&tl}, 100000, c);
        c.threads = 2;
        const Prediction d = predict({&tl}, 100000, c);
        c.threads = 3;
        const Prediction e = predict({&tl}, 100000, c);
        for (const Prediction* p : {&d, &e}) {
            EXPECT_EQ(a.phase_cycles, p->phase_cycles);
            EXPECT_EQ(a.mean_phase, p->mean_phase);
            EXPECT_EQ(a.noiseless_phase, p->noiseless_phase);
            EXPECT_EQ(a.coverage_percent, p->coverage_percent);
            EXPECT_EQ(a.coverage_max_percent, p->coverage_max_percent);
            ASSERT_EQ(a.per_task.size(), p->per_task.size());
            std::size_t diff = 0;
            for (std::size_t k = 0; k < a.per_task.size(); ++k)
                diff += a.per_task[k].jitter != p->per_task[k].jitter ||
                        a.per_task[k].wait != p->per_task[k].wait ||
                        a.per_task[k].total != p->per_task[k].total;
            EXPECT_EQ(diff, 0u);
        }
        // Bookkeeping: every cycle of a task is compute, jitter or wait.
        for (const TaskTotals& t : a.per_task) ASSERT_EQ(t.compute + t.jitter + t.wait, t.total);
        EXPECT_GT(a.slowdown_percent, 0.0);
    }
}

TEST(JitterPredict, DeterministicForASeed) {
    const JitterTrace trace = noisy();
    const Timeline tl(trace);
    PredictConfig c;
    c.work = 100000;
    c.phases = 5;
    c.barrier = tree(100, 100, 3000, 300, 4);
    c.start.seed = 99;
    const Prediction a = predict({&tl}, 5000, c);
    const Prediction b = predict({&tl}, 5000, c);
    EXPECT_EQ(a.phase_cycles, b.phase_cycles);
    c.start.seed = 100;
    EXPECT_NE(predict({&tl}, 5000, c).phase_cycles, a.phase_cycles);
}

TEST(JitterPredict, OneTracePerCore) {
    // Two cores per node, two traces: task k uses trace k % 2. Task 1 runs on the quiet one.
    const JitterTrace t2 = figure2();
    const JitterTrace q = quiet();
    const Timeline a(t2), b(q);
    PredictConfig c = explicit_config(100, {0});
    c.barrier.cores_per_node = 2;
    const Prediction p = predict({&a, &b}, 2, c);
    expect_totals(p.per_task[0], 100, 30, 0, 130, "task 0 on figure 2");
    expect_totals(p.per_task[1], 100, 0, 30, 130, "task 1 on the quiet trace");
}

TEST(JitterPredict, CoverageAboveOneHundredPercentWhenTheRunWraps) {
    const JitterTrace trace = figure2();
    const Timeline tl(trace);
    PredictConfig c = explicit_config(100, {0});
    c.phases = 20;  // 2,000 compute cycles out of 680 per pass: the trace wraps
    const Prediction p = predict({&tl}, 1, c);
    const std::uint64_t total = p.per_task[0].total;
    EXPECT_GT(total, 2000u);
    EXPECT_DOUBLE_EQ(p.coverage_percent, 100.0 * static_cast<double>(total) / 845.0);
    EXPECT_GT(p.coverage_percent, 236.0);
    // 2,000 compute cycles are 2000/680 passes: the jitter met is about 165 per 680 compute.
    EXPECT_EQ(p.per_task[0].compute, 2000u);
    EXPECT_NEAR(static_cast<double>(p.per_task[0].jitter), 2000.0 * 165 / 680, 60.0);
}

TEST(JitterPredict, BadInputs) {
    const JitterTrace trace = figure2();
    const Timeline tl(trace);
    PredictConfig c = explicit_config(100, {0});
    // A quantum larger than all the trace's compute (680 cycles) is an error, not a wrap.
    c.work = 681;
    EXPECT_THROW(predict({&tl}, 1, c), std::invalid_argument);
    c.work = 680;
    EXPECT_NO_THROW(predict({&tl}, 1, c));
    c.work = 100;
    c.start.indices = {10};  // the trace has tuples 0…9
    EXPECT_THROW(predict({&tl}, 1, c), std::invalid_argument);
    c.start.indices = {9};
    EXPECT_NO_THROW(predict({&tl}, 1, c));
    c.start.policy = StartPolicy::Coscheduled;  // window pair longer than the 845 cycles
    c.start.window_high = 800;
    c.start.window_low = 46;
    EXPECT_THROW(predict({&tl}, 1, c), std::invalid_argument);
    c.start.window_low = 45;
    EXPECT_NO_THROW(predict({&tl}, 1, c));
    c.start.window_high = 0;
    EXPECT_THROW(predict({&tl}, 1, c), std::invalid_argument);
    c = explicit_config(100, {0});
    EXPECT_THROW(predict({&tl}, 0, c), std::invalid_argument);  // no tasks
    EXPECT_THROW(predict({}, 1, c), std::invalid_argument);     // no trace
    c.work = 0;
    EXPECT_THROW(predict({&tl}, 1, c), std::invalid_argument);
    c.work = 100;
    c.phases = 0;
    EXPECT_THROW(predict({&tl}, 1, c), std::invalid_argument);
    c.phases = 1;
    c.barrier = tree(1, 1, 1, 1, 0);  // zero cores per node
    EXPECT_THROW(predict({&tl}, 1, c), std::invalid_argument);
    c.barrier = tree(1, 1, 1, 1, 1);
    c.barrier.arity = 0;
    EXPECT_THROW(predict({&tl}, 1, c), std::invalid_argument);
}

TEST(JitterPredict, TreeDepthAndKaryTrees) {
    EXPECT_EQ(tree_depth(0, 2), 0u);
    EXPECT_EQ(tree_depth(1, 2), 1u);
    EXPECT_EQ(tree_depth(2, 2), 1u);
    EXPECT_EQ(tree_depth(6, 2), 2u);
    EXPECT_EQ(tree_depth(7, 2), 3u);
    EXPECT_EQ(tree_depth(1048574, 2), 19u);
    EXPECT_EQ(tree_depth(1048575, 2), 20u);  // 2^20 - 1 opens level 20
    EXPECT_EQ(tree_depth(4, 4), 1u);
    EXPECT_EQ(tree_depth(5, 4), 2u);
    EXPECT_EQ(tree_depth(20, 4), 2u);
    EXPECT_EQ(tree_depth(21, 4), 3u);
    EXPECT_EQ(tree_depth(9, 1), 9u);  // a chain
    // A 4-ary tree of 5 tasks, latencies only: θ = w + 2L (every leaf at depth 1).
    const JitterTrace q = quiet();
    const Timeline tl(q);
    PredictConfig c;
    c.work = 1000;
    c.barrier = tree(0, 0, 100, 100, 1);
    c.barrier.arity = 4;
    EXPECT_EQ(predict({&tl}, 5, c).noiseless_phase, 1200u);
    EXPECT_EQ(predict({&tl}, 6, c).noiseless_phase, 1400u);
    // A chain of 4 tasks with send = recv = 10: down 3 hops of s+L+r... and up again:
    // θ = w + 2·3·(L + s + r) = 1000 + 6·120 = 1720.
    c.barrier = tree(10, 10, 100, 100, 1);
    c.barrier.arity = 1;
    EXPECT_EQ(predict({&tl}, 4, c).noiseless_phase, 1720u);
}

// The noiseless phase (one pass down and one up the tree) against the full schedule run on a
// trace without jitter, for many shapes: every phase takes exactly the noiseless time.
TEST(JitterPredict, NoiselessPhaseMatchesAQuietRun) {
    const JitterTrace q = quiet();
    const Timeline tl(q);
    Rng rng(8);
    for (int round = 0; round < 60; ++round) {
        PredictConfig c;
        c.work = 1 + rng.below(5000);
        c.phases = 3;
        c.barrier = tree(rng.below(200), rng.below(200), rng.below(2000), rng.below(300),
                         static_cast<std::uint32_t>(1 + rng.below(9)));
        c.barrier.arity = static_cast<std::uint32_t>(1 + rng.below(4));
        c.start.seed = static_cast<std::uint64_t>(round);
        const std::uint64_t n = 1 + rng.below(round < 50 ? 70 : 20000);
        const Prediction p = predict({&tl}, n, c);
        EXPECT_EQ(p.phase_cycles, std::vector<std::uint64_t>(3, p.noiseless_phase))
            << "round " << round << " n " << n;
        EXPECT_GE(p.noiseless_phase, c.work);
    }
}
}  // namespace CLUSTERSIM_TEST_FILE
