// One spelling for registered names. Every name a registry gives out (apps, collective
// algorithms, network, CPU and communication models, cache layers, disks, trace formats,
// placements, jitter policies and barriers) is lowercase with words joined by '_', as MPI's
// and Open MPI's names are (`reduce_scatter`, `recursive_doubling`, `write_behind`). Keys
// (flags, XML elements and attributes, `key=value` parameters) join words with '-', and so do
// the fabric kinds of `generate`, which are XML element names (`fat-tree`). A name given with '-'
// where the registered one has '_' (or the other way round) is accepted as that name, with
// one note per name on the stream set_spelling_notes gives (the command line's stderr):
//   clustersim: note: 'round-robin' is read as 'round_robin', its registered spelling
#pragma once

#include <cstddef>
#include <iosfwd>
#include <iterator>
#include <string>
#include <string_view>

namespace clustersim {

// Whether `a` and `b` are the same name with '-' and '_' taken as one character.
constexpr bool same_but_separators(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];
        if (x != y) return false;
    }
    return true;
}

// Where notes about names read in the other spelling go (null, the default: nowhere).
void set_spelling_notes(std::ostream* out);
// Notes that `given` was read as `registered` (once per pair and process).
void note_spelling(std::string_view given, std::string_view registered);

// The element of `range` whose name (`name_of(element)`) is `name`, or else the one equal up
// to the separators (noted); nullptr if none. Returns a pointer to the element.
template <class Range, class NameOf>
auto find_named(Range& range, std::string_view name, NameOf name_of)
    -> decltype(&*std::begin(range)) {
    for (auto& e : range)
        if (std::string_view(name_of(e)) == name) return &e;
    for (auto& e : range)
        if (same_but_separators(name_of(e), name)) {
            note_spelling(name, name_of(e));
            return &e;
        }
    return nullptr;
}

}  // namespace clustersim
