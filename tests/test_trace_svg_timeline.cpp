// svg_timelines, the Gantt chart of `compare`: one <rect> per operation (plus the background
// and one legend swatch per kind), x positions on the closed-form scale, sub-pixel operations
// merged into marks of the dominant kind, the window clipping, the size cap, escaping.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "mpi/runtime.hpp"
#include "report/run_log.hpp"
#include "report/svg.hpp"

namespace CLUSTERSIM_TEST_FILE {

namespace traces = clustersim::traces;
namespace mpi = clustersim::mpi;
using clustersim::Time;

const int kCompute = mpi::stat_kind(mpi::OpKind::Compute, mpi::CollOp::Barrier, false);
const int kSend = mpi::stat_kind(mpi::OpKind::Send, mpi::CollOp::Barrier, false);
const int kRecv = mpi::stat_kind(mpi::OpKind::Recv, mpi::CollOp::Barrier, false);
const int kBcast = mpi::stat_kind(mpi::OpKind::Collective, mpi::CollOp::Bcast, false);

mpi::OpEvent op(int rank, int kind, Time start, Time end) {
    mpi::OpEvent e;
    e.rank = rank;
    e.kind = kind;
    e.start = start;
    e.end = end;
    return e;
}

traces::RunLog log_of(std::size_t ranks, std::vector<mpi::OpEvent> ops,
                      const std::string& title = "run") {
    traces::RunLog log;
    log.title = title;
    log.ranks.resize(ranks);
    log.ops = std::move(ops);
    for (const auto& e : log.ops) log.simulated = clustersim::max(log.simulated, e.end);
    return log;
}

struct Rect {
    double x, y, width, height;
    std::string fill, title;
};

// Parses the document (it must be well-formed XML) and returns its <rect> elements.
std::vector<Rect> rects(const std::string& svg) {
    pugi::xml_document doc;
    const auto ok = doc.load_string(svg.c_str());
    EXPECT_TRUE(ok) << ok.description();
    std::vector<Rect> out;
    for (const auto& n : doc.select_nodes("//rect")) {
        const auto r = n.node();
        out.push_back({r.attribute("x").as_double(), r.attribute("y").as_double(),
                       r.attribute("width").as_double(), r.attribute("height").as_double(),
                       r.attribute("fill").value(), r.child_value("title")});
    }
    return out;
}

// The operation rects: inside <g class="events">.
std::vector<Rect> event_rects(const std::string& svg) {
    pugi::xml_document doc;
    EXPECT_TRUE(doc.load_string(svg.c_str()));
    std::vector<Rect> out;
    for (const auto& n : doc.select_nodes("//g[@class='events']/rect")) {
        const auto r = n.node();
        out.push_back({r.attribute("x").as_double(), r.attribute("y").as_double(),
                       r.attribute("width").as_double(), r.attribute("height").as_double(),
                       r.attribute("fill").value(), r.child_value("title")});
    }
    return out;
}

const Rect* with_title(const std::vector<Rect>& rs, const std::string& prefix) {
    for (const auto& r : rs)
        if (r.title.rfind(prefix, 0) == 0) return &r;
    return nullptr;
}

double x_of(Time t, Time from, Time to) {  // the documented closed form
    return traces::kTimelineLeft + static_cast<double>((t - from).ps()) *
                                       traces::kTimelinePlotWidth /
                                       static_cast<double>((to - from).ps());
}

std::size_t count(const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
}

TEST(SvgTimeline, OneRectPerOperationPlusLegendAndBackground) {
    const auto rec = log_of(
        2, {op(0, kCompute, Time::ms(0), Time::ms(10)), op(0, kSend, Time::ms(10), Time::ms(20)),
            op(1, kRecv, Time::ms(0), Time::ms(20)), op(1, kCompute, Time::ms(20), Time::ms(40))});
    const auto sim =
        log_of(2, {op(0, kSend, Time::ms(0), Time::ms(12)), op(1, kRecv, Time::ms(0), Time::ms(12)),
                   op(1, kBcast, Time::ms(12), Time::ms(30))});
    const std::string svg = traces::svg_timelines("t", {{"recorded", &rec}, {"simulated", &sim}},
                                                  Time::zero(), Time::ms(40));
    // 7 operations, 4 kinds (Compute Send Recv Bcast) in the legend, 1 background.
    EXPECT_EQ(rects(svg).size(), 7u + 4u + 1u);
    EXPECT_EQ(event_rects(svg).size(), 7u);
    EXPECT_EQ(count(svg, "<title>"), 7u);
    for (const char* name : {">Compute<", ">Send<", ">Recv<", ">Bcast<"})
        EXPECT_EQ(count(svg, name), 1u) << name;  // each kind once in the legend
    // Both panels, rows labelled by rank, the unit on the axis.
    EXPECT_NE(svg.find(">recorded</tspan>"), std::string::npos);
    EXPECT_NE(svg.find(">simulated</tspan>"), std::string::npos);
    EXPECT_EQ(count(svg, ">rank 0</text>"), 2u);
    EXPECT_EQ(count(svg, ">rank 1</text>"), 2u);
    EXPECT_NE(svg.find("time (ms)"), std::string::npos);
    // The simulated panel lies below the recorded one.
    const auto ev = event_rects(svg);
    EXPECT_GT(with_title(ev, "rank 0 Send: 12 ms")->y, with_title(ev, "rank 1 Compute")->y);
}

TEST(SvgTimeline, XPositionsFollowTheClosedFormScale) {
    const Time from = Time::ms(10), to = Time::ms(30);
    const auto log = log_of(1, {op(0, kSend, Time::us(12'500), Time::us(17'500))});
    const auto ev = event_rects(traces::svg_timelines("t", {{"run", &log}}, from, to));
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_NEAR(ev[0].x, x_of(Time::us(12'500), from, to), 0.006);  // 84 + 125
    EXPECT_NEAR(ev[0].x, 209.0, 0.006);
    EXPECT_NEAR(ev[0].width, 250.0, 0.006);  // 5 ms of 20 ms over 1000 px
    EXPECT_EQ(ev[0].fill, traces::timeline_color(kSend));
    EXPECT_NE(ev[0].title.find("5 ms at 12.5 ms"), std::string::npos) << ev[0].title;
}

TEST(SvgTimeline, ColoursAreStablePerKindAndComputeIsGrey) {
    std::set<std::string> seen;
    for (int k = 0; k < mpi::kStatKinds; ++k) {
        const std::string c = traces::timeline_color(k);
        EXPECT_EQ(c.size(), 7u);
        EXPECT_EQ(c[0], '#');
        seen.insert(c);
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(mpi::kStatKinds));  // all distinct
    const std::string grey = traces::timeline_color(kCompute);
    EXPECT_TRUE(grey[1] == grey[3] && grey[3] == grey[5] && grey[2] == grey[4] &&
                grey[4] == grey[6])
        << grey;
    EXPECT_EQ(traces::timeline_color(kSend), traces::timeline_color(kSend));
}

TEST(SvgTimeline, SubPixelOperationsMergeIntoMarksOfTheDominantKind) {
    // 40 ms over 1000 px: 1 px = 40 us. 10000 operations of 3 us Send then 1 us Recv, back
    // to back: Send dominates every column, so one rect covers the whole row.
    std::vector<mpi::OpEvent> ops;
    Time t;
    for (int i = 0; i < 5000; ++i) {
        ops.push_back(op(0, kSend, t, t + Time::us(3)));
        ops.push_back(op(0, kRecv, t + Time::us(3), t + Time::us(4)));
        t += Time::us(8);
    }
    const auto log = log_of(1, ops);
    const std::string svg = traces::svg_timelines("t", {{"run", &log}}, Time::zero(), t);
    const auto ev = event_rects(svg);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].fill, traces::timeline_color(kSend));
    EXPECT_NEAR(ev[0].x, traces::kTimelineLeft, 1e-9);
    EXPECT_NEAR(ev[0].width, traces::kTimelinePlotWidth, 1e-9);
    EXPECT_EQ(rects(svg).size(), 1u + 2u + 1u);  // both kinds still in the legend
    EXPECT_LT(svg.size(), 5000u);

    // One column (1 px = 1 us here) holding 0.3 px of Send and 0.5 px of Recv: a 1-px Recv
    // mark at the column's left edge; the wide operation after it keeps its own rect.
    const auto mixed = log_of(1, {op(0, kSend, Time::ns(5'100), Time::ns(5'400)),
                                  op(0, kRecv, Time::ns(5'400), Time::ns(5'900)),
                                  op(0, kCompute, Time::us(10), Time::us(20))});
    const auto mev =
        event_rects(traces::svg_timelines("t", {{"run", &mixed}}, Time::zero(), Time::ms(1)));
    ASSERT_EQ(mev.size(), 2u);
    EXPECT_EQ(mev[0].fill, traces::timeline_color(kRecv));
    EXPECT_NEAR(mev[0].x, traces::kTimelineLeft + 5, 1e-9);
    EXPECT_NEAR(mev[0].width, 1.0, 1e-9);
    EXPECT_EQ(mev[1].fill, traces::timeline_color(kCompute));
    EXPECT_NEAR(mev[1].x, traces::kTimelineLeft + 10, 0.006);
    EXPECT_NEAR(mev[1].width, 10.0, 0.006);
}

TEST(SvgTimeline, WideNeighboursCountInTheColumnTheyShare) {
    // 1 px = 1 us. A Bcast to 10.8 us, then 0.1 us of Compute: column 10 is 0.8 Bcast and
    // 0.1 Compute, so its mark is Bcast (a Compute mark would suggest a gap in the Bcast).
    const auto log = log_of(1, {op(0, kBcast, Time::us(2), Time::ns(10'800)),
                                op(0, kCompute, Time::ns(10'800), Time::ns(10'900)),
                                op(0, kBcast, Time::ns(10'900), Time::us(20))});
    const auto ev =
        event_rects(traces::svg_timelines("t", {{"run", &log}}, Time::zero(), Time::ms(1)));
    ASSERT_EQ(ev.size(), 3u);
    for (const auto& r : ev) EXPECT_EQ(r.fill, traces::timeline_color(kBcast));
}

TEST(SvgTimeline, TheWindowClipsOperationsAndTheLegend) {
    const Time from = Time::ms(10), to = Time::ms(20);
    const auto log = log_of(
        1, {op(0, kSend, Time::ms(5), Time::ms(15)), op(0, kCompute, Time::ms(15), Time::ms(25)),
            op(0, kBcast, Time::ms(25), Time::ms(30))});
    const std::string svg = traces::svg_timelines("t", {{"run", &log}}, from, to);
    const auto ev = event_rects(svg);
    ASSERT_EQ(ev.size(), 2u);  // the Bcast lies outside
    EXPECT_NEAR(ev[0].x, traces::kTimelineLeft, 0.006);
    EXPECT_NEAR(ev[0].width, 500.0, 0.006);
    EXPECT_NEAR(ev[1].x, x_of(Time::ms(15), from, to), 0.006);
    EXPECT_NEAR(ev[1].x + ev[1].width, traces::kTimelineLeft + traces::kTimelinePlotWidth, 0.006);
    EXPECT_EQ(svg.find(">Bcast<"), std::string::npos);  // not in the legend either
    EXPECT_EQ(rects(svg).size(), 2u + 2u + 1u);
    // Ticks every 2 ms from 10 to 20, labelled in ms at their closed-form x.
    EXPECT_NE(svg.find(R"(<text x="484.00" y=)"), std::string::npos);  // 14 ms
    EXPECT_NE(svg.find(">14</text>"), std::string::npos);
    EXPECT_NE(svg.find("time (ms)"), std::string::npos);

    EXPECT_THROW(traces::svg_timelines("t", {{"run", &log}}, to, to), std::invalid_argument);
    const std::string empty = traces::svg_timelines("t", {{"run", &log}}, Time::s(1), Time::s(3));
    EXPECT_TRUE(event_rects(empty).empty());
    EXPECT_NE(empty.find("no operations in this window"), std::string::npos);
    EXPECT_NE(empty.find("time (s)"), std::string::npos);
}

TEST(SvgTimeline, StaysUnderTheSizeCapForHundredsOfThousandsOfOperations) {
    // 128 ranks x 2000 operations of 0.5 px, the dominant kind alternating every column: one
    // mark per pixel column and row at 1 px (about 9 MB), so the cap forces wider marks.
    std::vector<mpi::OpEvent> ops;
    for (int r = 0; r < 128; ++r)
        for (int i = 0; i < 2000; ++i)
            ops.push_back(
                op(r, (i / 2) % 2 ? kSend : kRecv, Time::us(20) * i, Time::us(20) * (i + 1)));
    const auto log = log_of(128, ops);
    const std::string svg = traces::svg_timelines("t", {{"run", &log}}, Time::zero(), Time::ms(40));
    EXPECT_LE(svg.size(), traces::kTimelineMaxBytes);
    const auto ev = event_rects(svg);
    ASSERT_FALSE(ev.empty());
    EXPECT_GE(ev.front().width, 2.0);  // merged into wider marks
    EXPECT_EQ(svg.find("merged into 1 px marks"), std::string::npos);
    EXPECT_NE(svg.find("to stay under 2 MiB"), std::string::npos);
    for (const auto& r : ev) EXPECT_LE(r.x + r.width, 1084.0 + 1e-9);

    // A smaller cap is met too; a generous one keeps 1-px marks, one per column and row.
    EXPECT_LE(
        traces::svg_timelines("t", {{"run", &log}}, Time::zero(), Time::ms(40), 300'000).size(),
        300'000u);
    // A cap below one mark per row: the coarsest picture, still a whole document.
    const std::string tiny =
        traces::svg_timelines("t", {{"run", &log}}, Time::zero(), Time::ms(40), 1000);
    EXPECT_EQ(event_rects(tiny).size(), 128u);
    EXPECT_NE(tiny.find("merged into 1024 px marks"), std::string::npos);
    const std::string full =
        traces::svg_timelines("t", {{"run", &log}}, Time::zero(), Time::ms(40), 64u << 20);
    EXPECT_EQ(event_rects(full).size(), 128u * 1000u);
    EXPECT_NE(full.find("merged into 1 px marks"), std::string::npos);
}

TEST(SvgTimeline, ManyRanksAreCappedAndTextIsEscaped) {
    const std::size_t ranks = traces::kTimelineMaxRows + 10;
    std::vector<mpi::OpEvent> ops;
    for (std::size_t r = 0; r < ranks; ++r)
        ops.push_back(op(static_cast<int>(r), kCompute, Time::zero(), Time::ms(1)));
    const auto log = log_of(ranks, ops, "a <b> & \"c\"");
    const std::string svg =
        traces::svg_timelines("x < y & z", {{"l'1", &log}}, Time::zero(), Time::ms(1));
    EXPECT_EQ(event_rects(svg).size(), traces::kTimelineMaxRows);
    EXPECT_NE(svg.find(fmt::format("of {} shown", ranks)), std::string::npos);
    EXPECT_NE(svg.find("x &lt; y &amp; z"), std::string::npos);
    EXPECT_NE(svg.find("a &lt;b&gt; &amp; &quot;c&quot;"), std::string::npos);
    EXPECT_NE(svg.find("l&apos;1"), std::string::npos);
}

}  // namespace CLUSTERSIM_TEST_FILE
