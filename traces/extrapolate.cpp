// Trace extrapolation (traces/extrapolate.hpp; traces/README.md, "Extrapolation").
#include "traces/extrapolate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/text.hpp"

namespace clustersim::traces {
// A named namespace, not an anonymous one: the library is a unity build, and other files'
// file-local names (trace.cpp's `Field`) would meet these in one translation unit.
namespace extrapolate_impl {

// ---- a rank's MPI calls, each with the compute before it ---------------------------------
// Compute records are the gaps between calls: a recorded trace has one wherever the gap was
// longer than 0 ns, so their number varies from rank to rank. The calls are what is aligned;
// the compute before each call (and after the last) is summed into its slot.
struct Call {
    Record rec;                   // not Compute; kind Compute with `end` for the final slot
    bool end = false;             // the compute after the last call
    std::int64_t gap_ps = 0;      // compute time before it (ps)
    std::uint64_t gap_instr = 0;  // compute instructions before it
    std::uint64_t record = 0;     // its record number in the input (1-based), for errors
};

class CallReader {
  public:
    CallReader(const Trace& t, std::uint32_t rank) : cursor_(t.cursor(rank)) {}
    // False after the final slot.
    bool next(Call& c) {
        if (done_) return false;
        c = Call{};
        Record r;
        while (cursor_.next(r)) {
            ++number_;
            if (r.kind == mpi::OpKind::Compute) {
                c.gap_ps += r.compute_time.ps();
                c.gap_instr += r.instructions;
                continue;
            }
            c.rec = r;
            c.record = number_;
            return true;
        }
        c.end = true;
        c.record = number_;
        done_ = true;
        return true;
    }

  private:
    Trace::Cursor cursor_;
    std::uint64_t number_ = 0;
    bool done_ = false;
};

std::uint64_t calls_of(const Trace& t, std::uint32_t rank) {
    CallReader reader(t, rank);
    Call c;
    std::uint64_t n = 0;
    while (reader.next(c)) ++n;
    return n;
}

// ---- the fields fitted -------------------------------------------------------------------
enum class Kind : std::uint8_t { Count, Size, Peer, Compute };

struct Field {
    const char* name;
    Kind kind;
    std::int64_t (*get)(const Call&);
    void (*set)(Record&, std::int64_t);
};

#define CS_FIELD(NAME, KIND, MEMBER, TYPE)                                                       \
    Field {                                                                                      \
        NAME, Kind::KIND, [](const Call& c) { return static_cast<std::int64_t>(c.rec.MEMBER); }, \
            [](Record& r, std::int64_t v) { r.MEMBER = static_cast<TYPE>(v); }                   \
    }

const std::array<Field, 23> kFields{{
    CS_FIELD("peer", Peer, peer, std::int32_t),
    CS_FIELD("peer2", Peer, peer2, std::int32_t),
    CS_FIELD("root", Peer, root, std::int32_t),
    CS_FIELD("bytes", Size, bytes, std::uint64_t),
    CS_FIELD("bytes2", Size, bytes2, std::uint64_t),
    CS_FIELD("offset", Size, offset, std::uint64_t),
    CS_FIELD("view_block", Size, view_block, std::uint64_t),
    CS_FIELD("view_stride", Size, view_stride, std::uint64_t),
    CS_FIELD("tag", Count, tag, std::int32_t),
    CS_FIELD("tag2", Count, tag2, std::int32_t),
    CS_FIELD("handle", Count, handle, std::uint32_t),
    CS_FIELD("count", Count, count, std::uint32_t),
    CS_FIELD("color", Count, color, std::int32_t),
    CS_FIELD("key", Count, key, std::int32_t),
    CS_FIELD("newcomm", Count, newcomm, std::uint32_t),
    CS_FIELD("file", Count, file, std::uint32_t),
    CS_FIELD("win", Count, win, std::uint32_t),
    CS_FIELD("whence", Count, whence, std::uint8_t),
    CS_FIELD("instructions", Compute, instructions, std::uint64_t),
    Field{"time", Kind::Compute, [](const Call& c) { return c.rec.compute_time.ps(); },
          [](Record& r, std::int64_t v) { r.compute_time = Time::ps(v); }},
    Field{"compute time", Kind::Compute, [](const Call& c) { return c.gap_ps; },
          [](Record&, std::int64_t) {}},
    Field{"compute instructions", Kind::Compute,
          [](const Call& c) { return static_cast<std::int64_t>(c.gap_instr); },
          [](Record&, std::int64_t) {}},
    Field{"path", Kind::Count, [](const Call& c) { return static_cast<std::int64_t>(c.rec.path); },
          [](Record& r, std::int64_t v) { r.path = static_cast<std::int32_t>(v); }},
}};
#undef CS_FIELD
constexpr std::size_t kGapTime = 20, kGapInstr = 21, kPathField = 22;

// The range a field's value must stay in at the target.
bool fits_field(std::size_t f, std::int64_t v) {
    const char* n = kFields[f].name;
    const std::string_view name(n);
    if (kFields[f].kind == Kind::Size || kFields[f].kind == Kind::Compute) return v >= 0;
    if (name == "whence") return v >= 0 && v <= 2;
    if (name == "handle" || name == "count" || name == "newcomm" || name == "file" || name == "win")
        return v >= 0 && v <= std::numeric_limits<std::uint32_t>::max();
    return v >= std::numeric_limits<std::int32_t>::min() &&
           v <= std::numeric_limits<std::int32_t>::max();
}

// ---- grids and rank classes -----------------------------------------------------------------
enum class Pos : std::uint8_t { First, Interior, Last, Single };

// A class key: one Pos per dimension, or empty for "every rank alike".
using ClassKey = std::vector<Pos>;

ClassKey class_of(std::uint32_t rank, const std::vector<std::uint32_t>& dims, bool by_position) {
    ClassKey key;
    if (!by_position) return key;
    const std::vector<std::uint32_t> c = grid_coords(rank, dims);
    for (std::size_t i = 0; i < dims.size(); ++i)
        key.push_back(dims[i] == 1          ? Pos::Single
                      : c[i] == 0           ? Pos::First
                      : c[i] + 1 == dims[i] ? Pos::Last
                                            : Pos::Interior);
    return key;
}

std::string class_name(const ClassKey& key) {
    if (key.empty()) return "all";
    static const char* const kNames[] = {"first", "interior", "last", "single"};
    if (key.size() == 1) return kNames[static_cast<int>(key.front())];
    std::string s = "(";
    for (Pos p : key) s += std::string(s.size() > 1 ? ", " : "") + kNames[static_cast<int>(p)];
    return s + ")";
}

// ---- peers as relations --------------------------------------------------------------------
struct Relation {
    enum Type : std::uint8_t { Same, Offset, FromLast } type = Same;
    std::int64_t value = 0;             // Same: the rank; FromLast: p - rank
    std::array<std::int32_t, 3> vec{};  // Offset: per dimension, wrapped around the grid
};

std::int64_t apply(const Relation& rel, std::uint32_t rank, const std::vector<std::uint32_t>& dims,
                   std::uint32_t p) {
    switch (rel.type) {
        case Relation::Same:
            return rel.value;
        case Relation::FromLast:
            return static_cast<std::int64_t>(p) - rel.value;
        case Relation::Offset: {
            std::vector<std::uint32_t> c = grid_coords(rank, dims);
            for (std::size_t i = 0; i < dims.size(); ++i) {
                const std::int64_t n = dims[i];
                c[i] = static_cast<std::uint32_t>(((c[i] + rel.vec[i]) % n + n) % n);
            }
            return grid_rank(c, dims);
        }
    }
    return 0;
}

std::string relation_name(const Relation& rel, std::size_t dims) {
    if (rel.type == Relation::Same) return "the same rank";
    if (rel.type == Relation::FromLast) return "p - k";
    return dims == 1 ? "a rank offset" : "a grid offset";
}

// ---- one scheme's fit ----------------------------------------------------------------------
struct Instance {
    std::size_t input;
    std::uint32_t rank;
};

struct FieldFit {
    std::uint8_t field = 0;
    bool relation = false;
    Relation rel;
    Law alpha, beta;                   // value = alpha(p) + beta(p) rank
    double alpha_at = 0, beta_at = 0;  // at the target's p (a grid law costs a dims_create)
};

std::string law_text(const FieldFit& fit) {
    return fit.beta.b == 0 && fit.beta.a == 0
               ? fit.alpha.name()
               : fit.alpha.name() + " + rank x (" + fit.beta.name() + ")";
}

struct Position {
    Record rec;  // the template: structure and every field that is constant
    bool end = false;
    std::vector<FieldFit> fits;
};

struct ClassFit {
    ClassKey key;
    std::vector<Position> positions;
};

// A scheme that does not fit: why, and how far it got (the refusal names the furthest).
struct Misfit {
    std::string label;  // the input named
    std::string what;
    std::uint64_t progress = 0;
    // All ranks taken alike make different calls: classes by position may fit, so a
    // refusal of another kind that got as far names the reason better.
    bool structural = false;
};

struct Scheme {
    int dims = 1;
    bool by_position = false;
};

class Fitter {
  public:
    Fitter(const std::vector<ExtrapolationInput>& in, const ExtrapolateOptions& o, Scheme s)
        : in_(in), options_(o), scheme_(s) {
        for (const auto& x : in_) grids_.push_back(dims_create(x.trace.ranks(), s.dims));
        target_ = dims_create(o.ranks, s.dims);
    }

    // Fits every class the target needs; returns false (and `misfit`) if one does not fit.
    bool run(Misfit& misfit, Extrapolation& out);
    const std::vector<ClassFit>& classes() const { return classes_; }
    const std::vector<std::uint32_t>& target() const { return target_; }
    const std::vector<std::vector<std::uint32_t>>& grids() const { return grids_; }

  private:
    [[noreturn]] void fail(const Instance& at, const Call& c, const std::string& what,
                           bool structural = false) const;
    std::string where(const Instance& at, const Call& c) const;
    void check_scales(const ClassKey& key, const std::vector<Instance>& inst) const;
    void fit_class(ClassFit& cf, const std::vector<Instance>& inst, Extrapolation& out);
    void fit_position(Position& pos, std::uint64_t index, const std::vector<Instance>& inst,
                      const std::vector<Call>& calls, const std::string& cname, Extrapolation& out);
    bool fit_peer(std::size_t f, const std::vector<Instance>& inst, const std::vector<Call>& calls,
                  FieldFit& fit) const;
    void fit_value(std::size_t f, const std::vector<Instance>& inst, const std::vector<Call>& calls,
                   FieldFit& fit, ParamFit& stats);
    void fit_compute_field(std::size_t f, const std::vector<Instance>& inst,
                           const std::vector<Call>& calls, FieldFit& fit, ParamFit& stats,
                           const std::string& where_text);
    std::uint32_t p_of(const Instance& i) const { return in_[i.input].trace.ranks(); }

    const std::vector<ExtrapolationInput>& in_;
    const ExtrapolateOptions& options_;
    Scheme scheme_;
    std::vector<std::vector<std::uint32_t>> grids_;
    std::vector<std::uint32_t> target_;
    std::vector<ClassFit> classes_;
    std::uint64_t progress_ = 0;
    double compute_sq_ = 0;
    std::uint64_t compute_n_ = 0;

  public:
    // Counts and sizes: the sum of squared residuals (law - value) and their number.
    std::array<std::pair<double, std::uint64_t>, 4> residual_{};
};

std::string Fitter::where(const Instance& at, const Call& c) const {
    const std::string what = c.end ? "the compute after its last call"
                                   : fmt::format("record {} ({})", c.record, record_name(c.rec));
    return fmt::format("rank {} ({} of {}), {}", at.rank,
                       class_name(class_of(at.rank, grids_[at.input], scheme_.by_position)),
                       grid_text(grids_[at.input]), what);
}

void Fitter::fail(const Instance& at, const Call& c, const std::string& what,
                  bool structural) const {
    throw Misfit{in_[at.input].label, where(at, c) + ": " + what, progress_, structural};
}

void add_law(ParamFit& pf, const std::string& name) {
    for (auto& [n, count] : pf.laws)
        if (n == name) {
            ++count;
            return;
        }
    pf.laws.emplace_back(name, 1);
}

ParamFit& stats_of(Extrapolation& out, Kind k) {
    switch (k) {
        case Kind::Count:
            return out.counts;
        case Kind::Size:
            return out.sizes;
        case Kind::Peer:
            return out.peers;
        case Kind::Compute:
            return out.compute;
    }
    return out.counts;
}

bool Fitter::fit_peer(std::size_t f, const std::vector<Instance>& inst,
                      const std::vector<Call>& calls, FieldFit& fit) const {
    // Candidates from the instance at the largest scale (the least ambiguous), checked on all.
    const std::size_t ref = inst.size() - 1;
    const std::int64_t q = kFields[f].get(calls[ref]);
    const std::uint32_t p = p_of(inst[ref]);
    std::vector<Relation> cand;
    cand.push_back(Relation{Relation::Same, q, {}});
    if (q >= 0 && q < p) {
        const auto& dims = grids_[inst[ref].input];
        const std::vector<std::uint32_t> a = grid_coords(inst[ref].rank, dims),
                                         b = grid_coords(static_cast<std::uint32_t>(q), dims);
        std::vector<Relation> offsets;
        for (unsigned mask = 0; mask < (1u << dims.size()); ++mask) {
            Relation r{Relation::Offset, 0, {}};
            for (std::size_t i = 0; i < dims.size(); ++i) {
                const std::int32_t n = static_cast<std::int32_t>(dims[i]);
                const std::int32_t delta =
                    static_cast<std::int32_t>(b[i]) - static_cast<std::int32_t>(a[i]);
                const std::int32_t up = ((delta % n) + n) % n;
                r.vec[i] = (mask >> i) & 1u ? up - n : up;
            }
            offsets.push_back(r);
        }
        std::stable_sort(offsets.begin(), offsets.end(), [](const Relation& x, const Relation& y) {
            return std::abs(x.vec[0]) + std::abs(x.vec[1]) + std::abs(x.vec[2]) <
                   std::abs(y.vec[0]) + std::abs(y.vec[1]) + std::abs(y.vec[2]);
        });
        cand.insert(cand.end(), offsets.begin(), offsets.end());
        cand.push_back(Relation{Relation::FromLast, static_cast<std::int64_t>(p) - q, {}});
    }
    std::vector<Relation> fits;
    for (const Relation& r : cand) {
        bool ok = true;
        for (std::size_t k = 0; k < inst.size() && ok; ++k)
            ok = apply(r, inst[k].rank, grids_[inst[k].input], p_of(inst[k])) ==
                 kFields[f].get(calls[k]);
        if (ok) fits.push_back(r);
    }
    if (fits.empty()) return false;
    fit.relation = true;
    fit.rel = fits.front();
    // Two grid offsets as short as each other that name the same ranks at every input but not
    // at the target (+1 and -1 along a dimension of at most 2 ranks): the inputs cannot tell
    // which one it is. (A longer one, +7 for -1 when 8 is the largest input, is not taken.)
    const auto length = [](const Relation& r) {
        return std::abs(r.vec[0]) + std::abs(r.vec[1]) + std::abs(r.vec[2]);
    };
    for (const Relation& r : fits) {
        if (r.type != Relation::Offset || fit.rel.type != Relation::Offset ||
            length(r) != length(fit.rel))
            continue;
        for (std::size_t i = 0; i < target_.size(); ++i) {
            const std::int64_t n = target_[i];
            if (((r.vec[i] - fit.rel.vec[i]) % n + n) % n == 0) continue;
            fail(inst.back(), calls.back(),
                 fmt::format("its {} is {:+d} or {:+d} along dimension {} of the grid alike at "
                             "every input (the dimension has at most {} ranks there) but not at "
                             "{}: record the program at a scale where that dimension has more",
                             kFields[f].name, fit.rel.vec[i], r.vec[i], i,
                             std::abs(fit.rel.vec[i] - r.vec[i]), grid_text(target_)));
        }
    }
    return true;
}

// value = alpha(p) + beta(p) rank, both laws, exact on every instance; throws a Misfit.
void Fitter::fit_value(std::size_t f, const std::vector<Instance>& inst,
                       const std::vector<Call>& calls, FieldFit& fit, ParamFit& stats) {
    const int d = scheme_.dims;
    // Per scale: the ranks' values; beta from two ranks, checked on the rest.
    std::map<std::uint32_t, std::vector<std::size_t>> by_p;
    for (std::size_t k = 0; k < inst.size(); ++k) by_p[p_of(inst[k])].push_back(k);
    std::vector<std::pair<double, double>> betas;
    for (const auto& [p, ks] : by_p) {
        if (ks.size() < 2) continue;
        const std::size_t k0 = ks.front(), k1 = ks.back();
        const double v0 = static_cast<double>(kFields[f].get(calls[k0]));
        const double v1 = static_cast<double>(kFields[f].get(calls[k1]));
        const double beta = (v1 - v0) / (static_cast<double>(inst[k1].rank) - inst[k0].rank);
        for (std::size_t k : ks) {
            const double at = v0 + beta * (static_cast<double>(inst[k].rank) - inst[k0].rank);
            if (std::llround(at) != kFields[f].get(calls[k]))
                fail(inst[k], calls[k],
                     fmt::format("its {} ({}) is not a linear function of the rank over the "
                                 "ranks of its class at {} ranks (rank {} has {})",
                                 kFields[f].name, kFields[f].get(calls[k]), p, inst[k0].rank,
                                 kFields[f].get(calls[k0])));
        }
        betas.emplace_back(p, beta);
    }
    Law beta{Growth::None, false, 0, 0, d};
    if (!betas.empty() && !fit_exact(betas, d, beta)) {
        const std::size_t k = by_p.rbegin()->second.back();
        fail(inst[k], calls[k],
             fmt::format("how its {} grows with the rank follows no law of p", kFields[f].name));
    }
    std::vector<std::pair<double, double>> alphas;
    for (const auto& [p, ks] : by_p) {
        const std::size_t k = ks.front();
        alphas.emplace_back(p, static_cast<double>(kFields[f].get(calls[k])) -
                                   beta.at(p) * static_cast<double>(inst[k].rank));
    }
    Law alpha;
    const std::size_t last = by_p.rbegin()->second.back();
    if (!fit_exact(alphas, d, alpha)) {
        std::string values;
        for (const auto& [p, ks] : by_p)
            values += fmt::format("{}{} at {}", values.empty() ? "" : ", ",
                                  kFields[f].get(calls[ks.front()]), p);
        fail(inst[last], calls[last],
             fmt::format("field {} ({}) follows no law of p{}", kFields[f].name, values,
                         by_p.size() < 3 ? "; a third scale would allow a + b g(p)" : ""));
    }
    for (std::size_t k = 0; k < inst.size(); ++k) {
        const double at = alpha.at(p_of(inst[k])) + beta.at(p_of(inst[k])) * inst[k].rank;
        if (std::llround(at) != kFields[f].get(calls[k]))
            fail(inst[k], calls[k],
                 fmt::format("its {} ({}) is not what the laws give ({})", kFields[f].name,
                             kFields[f].get(calls[k]), std::llround(at)));
        const double e = std::fabs(at - static_cast<double>(kFields[f].get(calls[k])));
        auto& [sq, n] = residual_[static_cast<int>(kFields[f].kind)];
        sq += e * e;
        ++n;
        stats.worst = std::max(stats.worst, e);
    }
    fit.alpha = alpha;
    fit.beta = beta;
}

// Whether a field means something for the record: peers for the calls that have them, any
// other field when it is not 0 somewhere (a field left at 0 by every rank is not counted).
bool used(std::size_t f, const Call& ref, bool same, std::int64_t v0) {
    if (f == kGapTime || f == kGapInstr) return !same || v0 != 0;
    if (kFields[f].kind != Kind::Peer) return !same || v0 != 0;
    if (ref.end) return false;
    using K = mpi::OpKind;
    const K k = ref.rec.kind;
    const std::string_view name(kFields[f].name);
    if (name == "root") {  // the rooted collectives'
        using C = mpi::CollOp;
        const C c = ref.rec.coll;
        return k == K::Collective && (c == C::Bcast || c == C::Reduce || c == C::Gather ||
                                      c == C::Scatter || c == C::Gatherv || c == C::Scatterv);
    }
    if (name == "peer2") return k == K::Sendrecv;
    return k == K::Send || k == K::Recv || k == K::Isend || k == K::Irecv || k == K::Sendrecv ||
           k == K::Put || k == K::Get || k == K::Accumulate || k == K::GetAccumulate ||
           k == K::WinLock || k == K::WinUnlock || k == K::WinFlush;
}

void Fitter::fit_compute_field(std::size_t f, const std::vector<Instance>& inst,
                               const std::vector<Call>& calls, FieldFit& fit, ParamFit& stats,
                               const std::string& where_text) {
    std::map<std::uint32_t, std::pair<double, double>> sums;  // p -> (sum, n)
    for (std::size_t k = 0; k < inst.size(); ++k) {
        auto& s = sums[p_of(inst[k])];
        s.first += static_cast<double>(kFields[f].get(calls[k]));
        s.second += 1;
    }
    std::vector<std::pair<double, double>> points;
    for (const auto& [p, s] : sums) points.emplace_back(p, s.first / s.second);
    double rms = 0, worst = 0;
    fit.alpha = fit_compute(points, rms, worst);
    fit.beta = Law{};
    add_law(stats,
            fit.alpha.g == Growth::None ? "constant (weak scaling)" : "c/p (strong scaling)");
    for (const auto& [p, v] : points) {
        const double e = fit.alpha.at(p) / std::max(v, 1.0) - 1.0;
        compute_sq_ += e * e;
        ++compute_n_;
    }
    if (worst >= stats.worst) {
        stats.worst = worst;
        stats.worst_where = where_text;
    }
}

void Fitter::fit_position(Position& pos, std::uint64_t index, const std::vector<Instance>& inst,
                          const std::vector<Call>& calls, const std::string& cname,
                          Extrapolation& out) {
    const Call& ref = calls.back();
    pos.rec = ref.rec;
    pos.end = ref.end;
    for (std::size_t k = 0; k < inst.size(); ++k) {
        const Call& c = calls[k];
        if (c.end != ref.end || c.rec.kind != ref.rec.kind || c.rec.coll != ref.rec.coll ||
            c.rec.nonblocking != ref.rec.nonblocking)
            fail(inst[k], c,
                 fmt::format("is {} where rank {} of {} (the same class) has {} at the same "
                             "place: the ranks of a class must make the same calls",
                             c.end ? "the end" : record_name(c.rec), inst.back().rank,
                             in_[inst.back().input].label,
                             ref.end ? "the end" : record_name(ref.rec)),
                 true);
        if (c.rec.path != kNone && ref.rec.path != kNone &&
            in_[inst[k].input].trace.strings.at(static_cast<std::size_t>(c.rec.path)) !=
                in_[inst.back().input].trace.strings.at(static_cast<std::size_t>(ref.rec.path)))
            fail(inst[k], c, "names another file or call than the same record of its class");
    }
    for (std::size_t f = 0; f < kFields.size(); ++f) {
        if (f == kPathField) continue;  // compared by content above
        ParamFit& stats = stats_of(out, kFields[f].kind);
        const std::int64_t v0 = kFields[f].get(calls.front());
        const bool same = std::all_of(calls.begin(), calls.end(),
                                      [&](const Call& c) { return kFields[f].get(c) == v0; });
        if (!used(f, ref, same, v0)) continue;
        if (same && kFields[f].kind != Kind::Peer) {
            ++stats.fitted;
            ++stats.constant;
            if (f == kGapTime || f == kGapInstr) {
                FieldFit fit;
                fit.field = static_cast<std::uint8_t>(f);
                fit.alpha = Law{Growth::None, false, static_cast<double>(v0), 0, 1};
                pos.fits.push_back(fit);
            }
            continue;
        }
        FieldFit fit;
        fit.field = static_cast<std::uint8_t>(f);
        ++stats.fitted;
        if (kFields[f].kind == Kind::Peer) {
            if (!fit_peer(f, inst, calls, fit))
                fail(inst.front(), calls.front(),
                     fmt::format("its {} ({}) is neither the same rank in every trace, a fixed "
                                 "offset on the {} grid, nor p - k (rank {} of {} has {})",
                                 kFields[f].name, kFields[f].get(calls.front()),
                                 scheme_.dims == 1 ? "1-D" : fmt::format("{}-D", scheme_.dims),
                                 inst.back().rank, in_[inst.back().input].label,
                                 kFields[f].get(calls.back())));
            if (fit.rel.type == Relation::Same && same) ++stats.constant;
            add_law(stats, relation_name(fit.rel, target_.size()));
            if (fit.rel.type == Relation::Same) continue;  // the template holds it
        } else if (kFields[f].kind == Kind::Compute) {
            fit_compute_field(
                f, inst, calls, fit, stats,
                fmt::format("class {}, {}", cname,
                            ref.end ? "the compute after the last call"
                                    : fmt::format("the {} of call {} ({})", kFields[f].name,
                                                  index + 1, record_name(ref.rec))));
        } else {
            fit_value(f, inst, calls, fit, stats);
            add_law(stats, law_text(fit));
        }
        pos.fits.push_back(fit);
    }
    ++progress_;
}

void Fitter::check_scales(const ClassKey& key, const std::vector<Instance>& inst) const {
    std::set<std::uint32_t> scales;
    for (const Instance& i : inst) scales.insert(p_of(i));
    if (scales.size() < 2)
        throw Misfit{
            in_[inst.front().input].label,
            fmt::format("only this input has ranks of class {} ({} of its ranks, grid "
                        "{}); a class needs ranks at two scales or more to be fitted",
                        class_name(key), inst.size(), grid_text(grids_[inst.front().input])),
            0};
}

void Fitter::fit_class(ClassFit& cf, const std::vector<Instance>& inst, Extrapolation& out) {
    const std::string cname = class_name(cf.key);
    // Equal lengths: the calls are aligned one to one.
    const std::uint64_t n = calls_of(in_[inst.back().input].trace, inst.back().rank);
    for (const Instance& i : inst) {
        const std::uint64_t m = calls_of(in_[i.input].trace, i.rank);
        if (m != n)
            throw Misfit{
                in_[i.input].label,
                fmt::format("rank {} ({} of {}) makes {} MPI calls, rank {} of {} (the "
                            "same class) {}: sequences of different lengths are not "
                            "aligned (a loop whose trip count grows with p, a tree of "
                            "log p steps written as messages)",
                            i.rank, cname, grid_text(grids_[i.input]), with_commas(m - 1),
                            inst.back().rank, in_[inst.back().input].label, with_commas(n - 1)),
                progress_, true};
    }
    std::vector<CallReader> readers;
    for (const Instance& i : inst) readers.emplace_back(in_[i.input].trace, i.rank);
    std::vector<Call> calls(inst.size());
    cf.positions.reserve(n);
    for (std::uint64_t k = 0; k < n; ++k) {
        for (std::size_t j = 0; j < inst.size(); ++j) readers[j].next(calls[j]);
        cf.positions.emplace_back();
        fit_position(cf.positions.back(), k, inst, calls, cname, out);
    }
}

bool Fitter::run(Misfit& misfit, Extrapolation& out) {
    try {
        std::map<ClassKey, std::vector<Instance>> inst;
        for (std::size_t i = 0; i < in_.size(); ++i)
            for (std::uint32_t r = 0; r < in_[i].trace.ranks(); ++r)
                inst[class_of(r, grids_[i], scheme_.by_position)].push_back({i, r});
        // The classes the target has, in the order of their first rank.
        std::vector<ClassKey> needed;
        std::set<ClassKey> seen;
        const std::uint32_t stride = target_.back();
        for (std::uint32_t r = 0; r < options_.ranks; ++r) {
            // Positions repeat along the last dimension: its first, second and last suffice.
            const std::uint32_t c = r % stride;
            if (c > 1 && c + 1 < stride) continue;
            ClassKey key = class_of(r, target_, scheme_.by_position);
            if (seen.insert(key).second) needed.push_back(key);
        }
        // Every class there, at two scales, before any is fitted: a classing that lacks one
        // is refused as having fitted nothing.
        for (const ClassKey& key : needed) {
            auto it = inst.find(key);
            if (it == inst.end())
                throw Misfit{"--ranks",
                             fmt::format("{}: no input has a rank at position {} of the grid "
                                         "{} (record the program at a scale that has one)",
                                         options_.ranks, class_name(key), grid_text(target_)),
                             0};
            check_scales(key, it->second);
        }
        for (const ClassKey& key : needed) {
            classes_.push_back(ClassFit{key, {}});
            fit_class(classes_.back(), inst.at(key), out);
        }
        for (ClassFit& c : classes_)
            for (Position& pos : c.positions)
                for (FieldFit& fit : pos.fits) {
                    fit.alpha_at = fit.alpha.at(options_.ranks);
                    fit.beta_at = fit.beta.at(options_.ranks);
                }
        out.compute.rms = compute_n_ ? std::sqrt(compute_sq_ / compute_n_) : 0;
        for (Kind k : {Kind::Count, Kind::Size}) {
            const auto& [sq, n] = residual_[static_cast<int>(k)];
            stats_of(out, k).rms = n ? std::sqrt(sq / static_cast<double>(n)) : 0;
        }
        return true;
    } catch (Misfit& m) {
        misfit = std::move(m);
        return false;
    }
}

// One field's value at target rank `r` of class `cls` (named in errors).
std::int64_t value_at(const FieldFit& fit, std::uint32_t r, const std::vector<std::uint32_t>& grid,
                      std::uint32_t ranks, const std::string& cls) {
    if (fit.relation) {
        const std::int64_t v = apply(fit.rel, r, grid, ranks);
        if (v < 0 || v >= ranks)
            throw InputError("--ranks", 0,
                             fmt::format("{}: the {} of a record of rank {} (class {}) is rank "
                                         "{}, outside the trace",
                                         ranks, kFields[fit.field].name, r, cls, v));
        return v;
    }
    const double x = fit.alpha_at + fit.beta_at * r;
    const std::int64_t v = std::isfinite(x) && std::fabs(x) < 9e18 ? std::llround(x) : -1;
    // A count or size the laws give as a fraction: the program's decomposition does not
    // divide at this rank count (compute is rounded).
    if (kFields[fit.field].kind != Kind::Compute && v >= 0 &&
        std::fabs(x - static_cast<double>(v)) > 1e-6 * std::max(1.0, std::fabs(x)))
        throw InputError("--ranks", 0,
                         fmt::format("{}: the law fitted for the {} of a record of class {} ({}) "
                                     "gives {:.6g} at rank {}, not a whole number: the program's "
                                     "decomposition does not divide evenly at this rank count",
                                     ranks, kFields[fit.field].name, cls, law_text(fit), x, r));
    if (!fits_field(fit.field, v))
        throw InputError("--ranks", 0,
                         fmt::format("{}: the law fitted for the {} of a record of class {} ({}) "
                                     "gives {} at rank {}, out of its range",
                                     ranks, kFields[fit.field].name, cls, law_text(fit), v, r));
    return v;
}

// Appends target rank `r`'s records, from its class's fits.
void write_rank(Trace& t, std::uint32_t r, const ClassFit& cf, const std::string& cls,
                const std::vector<std::uint32_t>& grid, std::uint32_t ranks) {
    for (const Position& pos : cf.positions) {
        Record rec = pos.rec;
        rec.timed = false;
        rec.start = rec.end = Time::zero();
        std::int64_t gap_ps = 0, gap_instr = 0;
        for (const FieldFit& fit : pos.fits) {
            const std::int64_t v = value_at(fit, r, grid, ranks, cls);
            if (fit.field == kGapTime)
                gap_ps = v;
            else if (fit.field == kGapInstr)
                gap_instr = v;
            else
                kFields[fit.field].set(rec, v);
        }
        // A compute record is a time or a count of instructions, not both.
        if (gap_instr > 0) {
            Record c{};
            c.instructions = static_cast<std::uint64_t>(gap_instr);
            t.append(r, c);
        }
        if (gap_ps > 0) {
            Record c{};
            c.compute_time = Time::ps(gap_ps);
            t.append(r, c);
        }
        if (!pos.end) t.append(r, rec);
    }
}

Extrapolation run(const std::vector<ExtrapolationInput>& inputs,
                  const ExtrapolateOptions& options) {
    check_extrapolation_inputs(inputs, options);
    // Inputs in increasing rank count: the last is the reference of every class.
    std::vector<ExtrapolationInput> in;
    in.reserve(inputs.size());
    for (const auto& x : inputs) in.push_back(x);
    std::sort(in.begin(), in.end(),
              [](const auto& a, const auto& b) { return a.trace.ranks() < b.trace.ranks(); });
    std::vector<Scheme> schemes;
    for (int d = options.dims ? options.dims : 1; d <= (options.dims ? options.dims : 3); ++d) {
        schemes.push_back({d, false});
        schemes.push_back({d, true});
    }
    std::optional<Misfit> best;
    for (const Scheme& s : schemes) {
        Extrapolation out;
        Fitter fitter(in, options, s);
        Misfit m;
        if (!fitter.run(m, out)) {
            m.structural = m.structural && !s.by_position;  // expected where ends differ
            if (!best || m.progress > best->progress ||
                (m.progress == best->progress && best->structural && !m.structural))
                best = m;
            continue;
        }
        const Trace& ref = in.back().trace;
        out.trace.name = ref.name;
        out.trace.format = "native_binary";
        out.trace.traced_speed = ref.traced_speed;
        out.trace.strings = ref.strings;
        out.trace.files = ref.files;
        out.trace.resize(options.ranks);
        out.dims = s.dims;
        out.by_position = s.by_position;
        out.grid = fitter.target();
        out.input_grids = fitter.grids();
        std::map<ClassKey, std::size_t> index;
        for (std::size_t c = 0; c < fitter.classes().size(); ++c) {
            index[fitter.classes()[c].key] = c;
            out.classes.emplace_back(class_name(fitter.classes()[c].key), 0);
        }
        for (std::uint32_t r = 0; r < options.ranks; ++r) {
            const std::size_t c = index.at(class_of(r, out.grid, s.by_position));
            ++out.classes[c].second;
            write_rank(out.trace, r, fitter.classes()[c], out.classes[c].first, out.grid,
                       options.ranks);
        }
        return out;
    }
    throw InputError(best->label, 0,
                     best->what + (options.dims ? "" : " (grids of 1, 2 and 3 dimensions tried)"));
}

}  // namespace extrapolate_impl

Extrapolation extrapolate(const std::vector<ExtrapolationInput>& inputs,
                          const ExtrapolateOptions& options) {
    return extrapolate_impl::run(inputs, options);
}

}  // namespace clustersim::traces
