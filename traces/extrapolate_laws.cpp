// The laws an extrapolation fits (traces/extrapolate.hpp), MPI_Dims_create's grid and the
// checks of the inputs that come before any fit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "simulator/error.hpp"

#include "traces/extrapolate.hpp"

namespace clustersim::traces {
namespace extrapolate_laws {  // named: the library is a unity build

double growth(Growth g, double p, int d, int axis) {
    switch (g) {
        case Growth::Dim:
        case Growth::InvDim: {
            // The fits evaluate a few scales many times: their grids are kept.
            thread_local std::map<std::pair<std::uint32_t, int>, std::vector<std::uint32_t>> grids;
            const auto key = std::make_pair(static_cast<std::uint32_t>(p), d);
            auto it = grids.find(key);
            if (it == grids.end()) it = grids.emplace(key, dims_create(key.first, d)).first;
            const double n = it->second[static_cast<std::size_t>(axis)];
            return g == Growth::Dim ? n : 1.0 / n;
        }
        case Growth::None:
            return 0;
        case Growth::P:
            return p;
        case Growth::InvP:
            return 1.0 / p;
        case Growth::Log2:
            return std::log2(p);
        case Growth::Root:
            return std::pow(p, 1.0 / d);
        case Growth::InvRoot:
            return std::pow(p, -1.0 / d);
    }
    return 0;
}

// The growths tried, in order, with their axis: with a 1-D grid p^(1/d) and n_0 are p.
std::vector<std::pair<Growth, int>> growths(int d) {
    std::vector<std::pair<Growth, int>> g{{Growth::P, 0}, {Growth::InvP, 0}, {Growth::Log2, 0}};
    if (d > 1) {
        g.emplace_back(Growth::Root, 0);
        g.emplace_back(Growth::InvRoot, 0);
        for (int i = 0; i < d; ++i) {
            g.emplace_back(Growth::Dim, i);
            g.emplace_back(Growth::InvDim, i);
        }
    }
    return g;
}

// Through every point, to rounding error: a law that only rounds to the values (0.81, 1.62,
// 3.24 for 1, 2, 3) would be wrong at the next scale.
bool exact(const std::vector<std::pair<double, double>>& points, const Law& law) {
    for (const auto& [p, v] : points) {
        const double at = law.at(p);
        if (!std::isfinite(at) || std::fabs(at - v) > 1e-9 * std::max(1.0, std::fabs(v)))
            return false;
    }
    return true;
}

// Every subset of factors: the d factors of p nearest each other, searched depth first.
void split(std::uint32_t p, int d, std::uint32_t largest, std::vector<std::uint32_t>& now,
           std::vector<std::uint32_t>& best) {
    if (d == 1) {
        if (p > largest) return;
        now.push_back(p);
        if (best.empty() || now.front() - now.back() < best.front() - best.back()) best = now;
        now.pop_back();
        return;
    }
    for (std::uint32_t f = std::min(largest, p); f >= 1; --f) {
        if (p % f != 0) continue;
        // The rest must fit in d - 1 factors of at most f: f^(d-1) >= p / f.
        if (std::pow(static_cast<double>(f), d - 1) + 0.5 < static_cast<double>(p / f)) break;
        now.push_back(f);
        split(p / f, d - 1, f, now, best);
        now.pop_back();
    }
}

}  // namespace extrapolate_laws

namespace laws = extrapolate_laws;

double Law::at(double p) const {
    return a + b * laws::growth(g, p, d, axis);
}

std::string Law::name() const {
    const char* gn = "";
    switch (g) {
        case Growth::None:
            return "constant";
        case Growth::P:
            gn = "p";
            break;
        case Growth::InvP:
            gn = "/p";
            break;
        case Growth::Log2:
            gn = " log2 p";
            break;
        case Growth::Root:
            gn = d == 2 ? " sqrt p" : " cbrt p";
            break;
        case Growth::InvRoot:
            gn = d == 2 ? "/sqrt p" : "/cbrt p";
            break;
        case Growth::Dim:
        case Growth::InvDim: {
            const std::string n = fmt::format("n{}", axis);
            return fmt::format("{}{}{}", pure ? "c" : "a + b", g == Growth::Dim ? " " : "/", n);
        }
    }
    const bool slash = gn[0] == '/';
    if (pure) return fmt::format("c{}{}", slash || gn[0] == ' ' ? "" : " ", gn);
    return fmt::format("a + b{}{}", slash || gn[0] == ' ' ? "" : " ", gn);
}

bool fit_exact(const std::vector<std::pair<double, double>>& points, int d, Law& out) {
    if (points.empty()) return false;
    const Law constant{Growth::None, false, std::round(points.front().second * 1e6) / 1e6, 0, d};
    if (laws::exact(points, constant)) {
        out = constant;
        return true;
    }
    if (points.size() < 2) return false;
    for (const auto& [g, axis] : laws::growths(d)) {  // c g(p): least squares through 0
        double num = 0, den = 0;
        for (const auto& [p, v] : points) {
            const double x = laws::growth(g, p, d, axis);
            num += x * v;
            den += x * x;
        }
        if (den == 0) continue;
        const Law law{g, true, 0, num / den, d, axis};
        if (laws::exact(points, law)) {
            out = law;
            return true;
        }
    }
    if (points.size() < 3) return false;
    for (const auto& [g, axis] : laws::growths(d)) {  // a + b g(p): least squares
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        const double n = static_cast<double>(points.size());
        for (const auto& [p, v] : points) {
            const double x = laws::growth(g, p, d, axis);
            sx += x;
            sy += v;
            sxx += x * x;
            sxy += x * v;
        }
        const double den = n * sxx - sx * sx;
        if (std::fabs(den) < 1e-300) continue;
        const double b = (n * sxy - sx * sy) / den;
        const Law law{g, false, (sy - b * sx) / n, b, d, axis};
        if (laws::exact(points, law)) {
            out = law;
            return true;
        }
    }
    return false;
}

Law fit_compute(const std::vector<std::pair<double, double>>& points, double& rms, double& worst) {
    // c g(p) minimising sum (c g / v - 1)^2: c = sum(g / v) / sum(g^2 / v^2).
    auto fit = [&](Growth g, double& r, double& w) {
        double num = 0, den = 0;
        for (const auto& [p, v] : points) {
            const double x = laws::growth(g == Growth::None ? Growth::P : g, p, 1, 0);
            const double gx = g == Growth::None ? 1.0 : x;
            const double vv = std::max(v, 1.0);
            num += gx / vv;
            den += gx * gx / (vv * vv);
        }
        Law law{g, g != Growth::None, 0, 0, 1};
        const double c = den > 0 ? num / den : 0;
        if (g == Growth::None)
            law.a = c;
        else
            law.b = c;
        double sum = 0;
        w = 0;
        for (const auto& [p, v] : points) {
            const double e = law.at(p) / std::max(v, 1.0) - 1.0;
            sum += e * e;
            w = std::max(w, std::fabs(e));
        }
        r = std::sqrt(sum / static_cast<double>(points.size()));
        return law;
    };
    double r1 = 0, w1 = 0, r2 = 0, w2 = 0;
    const Law weak = fit(Growth::None, r1, w1);
    const Law strong = fit(Growth::InvP, r2, w2);
    if (points.size() >= 2 && r2 < r1) {
        rms = r2;
        worst = w2;
        return strong;
    }
    rms = r1;
    worst = w1;
    return weak;
}

std::vector<std::uint32_t> grid_coords(std::uint32_t rank, const std::vector<std::uint32_t>& dims) {
    std::vector<std::uint32_t> c(dims.size());
    for (std::size_t i = dims.size(); i-- > 0;) {
        c[i] = rank % dims[i];
        rank /= dims[i];
    }
    return c;
}

std::uint32_t grid_rank(const std::vector<std::uint32_t>& c,
                        const std::vector<std::uint32_t>& dims) {
    std::uint64_t r = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) r = r * dims[i] + c[i];
    return static_cast<std::uint32_t>(r);
}

std::string grid_text(const std::vector<std::uint32_t>& dims) {
    std::string s;
    for (std::uint32_t n : dims) s += (s.empty() ? "" : "x") + std::to_string(n);
    return s;
}

std::vector<std::uint32_t> dims_create(std::uint32_t p, int d) {
    if (d <= 1 || p <= 1) {
        std::vector<std::uint32_t> out(static_cast<std::size_t>(std::max(d, 1)), 1);
        out.front() = std::max<std::uint32_t>(p, 1);
        return out;
    }
    std::vector<std::uint32_t> now, best;
    laws::split(p, d, p, now, best);
    return best;
}

void check_extrapolation_inputs(const std::vector<ExtrapolationInput>& in,
                                const ExtrapolateOptions& o) {
    if (in.size() < 2)
        throw InputError("", 0,
                         "extrapolate: give traces at two rank counts or more (three let counts "
                         "and sizes follow a + b g(p))");
    if (o.ranks == 0 || o.ranks > kMaxRanks)
        throw InputError("--ranks", 0, fmt::format("{}: expected 1 to {}", o.ranks, kMaxRanks));
    std::set<std::uint32_t> ps;
    for (const auto& x : in) {
        if (x.trace.ranks() == 0) throw InputError(x.label, 0, "the trace has no ranks");
        if (!ps.insert(x.trace.ranks()).second)
            throw InputError(
                x.label, 0,
                fmt::format("a second trace at {} ranks; give each scale once", x.trace.ranks()));
        for (std::uint32_t r = 0; r < x.trace.ranks(); ++r) {
            Trace::Cursor c = x.trace.cursor(r);
            Record rec;
            for (std::uint64_t n = 1; c.next(rec); ++n) {
                const auto k = rec.kind;
                std::string why;
                if (k == mpi::OpKind::CommDup || k == mpi::OpKind::CommSplit ||
                    k == mpi::OpKind::CartCreate || k == mpi::OpKind::DistGraphCreateAdjacent ||
                    k == mpi::OpKind::DistGraphCreate || k == mpi::OpKind::CommFree)
                    why = "makes or frees a communicator; only MPI_COMM_WORLD is extrapolated";
                else if (rec.comm != 0)
                    why = fmt::format(
                        "is on communicator {}; only MPI_COMM_WORLD (0) is "
                        "extrapolated",
                        rec.comm);
                else if (rec.counts != kNone)
                    why =
                        "has a count list (a v-collective or a wait for any of several "
                        "requests); per-rank lists are not extrapolated";
                if (!why.empty())
                    throw InputError(
                        x.label, 0,
                        fmt::format("rank {}, record {} ({}) {}", r, n, record_name(rec), why));
            }
        }
    }
}

}  // namespace clustersim::traces
