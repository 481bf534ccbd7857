// "Did you mean ...?" for a name the user got wrong: the closest valid name by edit distance
// (insertions, deletions, substitutions and swaps of neighbouring letters, case-insensitive),
// when it is close enough to be a likely typo. Used by every error that lists valid names
// (flags, subcommands, apps, collective algorithms, network models, trace formats).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim {

// Optimal-string-alignment distance between a and b, case-insensitive.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
    for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
    auto low = [](char c) {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    };
    for (std::size_t i = 1; i <= n; ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = low(a[i - 1]) == low(b[j - 1]) ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && low(a[i - 1]) == low(b[j - 2]) && low(a[i - 2]) == low(b[j - 1]))
                cur[j] = std::min(cur[j], prev2[j - 2] + 1);
        }
        std::swap(prev2, prev);
        std::swap(prev, cur);
    }
    return prev[m];
}

// The valid name closest to `name`, or "" if none is close: within a third of the longer
// name's length (at least 1, at most 3 edits), or `name` is a prefix of exactly one valid name.
inline std::string closest_name(std::string_view name, const std::vector<std::string>& valid) {
    std::string best;
    std::size_t best_d = SIZE_MAX;
    for (const std::string& v : valid) {
        if (v == name) return v;
        const std::size_t d = edit_distance(name, v);
        const std::size_t limit =
            std::clamp<std::size_t>(std::max(name.size(), v.size()) / 3, 1, 3);
        if (d <= limit && d < best_d) best = v, best_d = d;
    }
    if (!best.empty() || name.size() < 2) return best;
    std::size_t prefixed = 0;
    for (const std::string& v : valid)
        if (v.size() > name.size() && v.compare(0, name.size(), name) == 0) best = v, ++prefixed;
    return prefixed == 1 ? best : std::string();
}

// " (did you mean 'bcast'?)" or "".
inline std::string did_you_mean(std::string_view name, const std::vector<std::string>& valid) {
    const std::string c = closest_name(name, valid);
    return c.empty() ? std::string() : " (did you mean '" + c + "'?)";
}

// "a", "a or b", "a, b or c".
inline std::string or_names(const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i)
        s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return s;
}

// "'x' is not valid (did you mean 'b'?); expected a, b or c": the one wording of an
// enumerated value (an XML attribute's, a flag's) that is none of `names`.
inline std::string not_one_of(std::string_view value, const std::vector<std::string>& names) {
    return "'" + std::string(value) + "' is not valid" + did_you_mean(value, names) +
           "; expected " + or_names(names);
}

// Splits "a, b, c" (the names lists the registries print) into names.
inline std::vector<std::string> split_names(std::string_view list) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < list.size()) {
        std::size_t comma = list.find(',', pos);
        if (comma == std::string_view::npos) comma = list.size();
        std::string_view item = list.substr(pos, comma - pos);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (!item.empty()) out.emplace_back(item);
        pos = comma + 1;
    }
    return out;
}

}  // namespace clustersim
