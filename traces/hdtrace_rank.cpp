// The HDTrace reader's rank decoder: one XML trace (.trc) written by HDTrace's MPI wrapper,
// its top-level calls read into events (hdtrace_project.hpp) that hdtrace.cpp turns into
// records. Semantics and every choice made are documented in traces/README.md ("HDTrace traces
// and PIOsimHD models"); the short version:
//
//  - Only top-level calls are replayed. A <Nested> block holds the calls its following
//    top-level call made internally (ROMIO's Bcast inside File_open, MPICH's Sendrecv inside
//    Allgather); they are that call's implementation, so they are skipped (as PIOsimHD's own
//    trace reader does).
//  - Times are `timeAdjustment` + `time` / `end` (HDTrace adds the adjustment to every
//    timestamp), exact decimals in picoseconds. The origin (time 0) is the earliest start of
//    a top-level call over all ranks.
//  - The time between two replayed calls becomes a Compute record of that duration; local
//    calls (Init, Finalize, Type_*, File_get_position, ...) become Compute records of their
//    own duration, so a rank's records tile [0, last end] without gaps.
//  - Ranks in the trace (toRank, fromRank, rootRank, root) are world ranks; records carry
//    ranks within the call's communicator, mapped with the project's communicator list.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pugixml.hpp>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "traces/call_mapper.hpp"
#include "traces/hdtrace_project.hpp"
#include "traces/piosimhd_units.hpp"
#include "traces/reader.hpp"
#include "traces/text.hpp"
#include "traces/xml_file.hpp"

namespace clustersim::traces {
namespace {

using hdtrace_in::Communicator;
using hdtrace_in::Fix;
using hdtrace_in::HdEvent;
using hdtrace_in::named_size;
using hdtrace_in::parse_int;
using hdtrace_in::parse_seconds;
using hdtrace_in::Project;
using hdtrace_in::Ps;

struct ViewState {
    bool identity = true;     // view offsets are file offsets (no view, or disp 0 contiguous)
    std::uint64_t etype = 1;  // bytes per etype: *_at offsets and seeks count etypes
};

class HdRankReader {
  public:
    HdRankReader(const Project& p, const XmlFile& proj, const XmlFile& x, std::int32_t rank,
                 const ReadOptions& options, ReadReport& report)
        : p_(p), proj_(proj), x_(x), rank_(rank), options_(options), report_(report) {}

    std::vector<HdEvent> read(std::uint64_t& nested_skipped) {
        const pugi::xml_node program = x_.doc().child("Program");
        if (!program) x_.fail(x_.doc().first_child(), "expected an HDTrace trace: root <Program>");
        Ps adjust = 0;
        if (pugi::xml_attribute a = program.attribute("timeAdjustment")) {
            const auto v = parse_seconds(a.as_string());
            if (!v)
                x_.fail(program, fmt::format("timeAdjustment='{}': expected seconds as a decimal "
                                             "number (e.g. 1247131125.06)",
                                             a.as_string()));
            adjust = *v;
        }
        for (pugi::xml_node n : program.children()) {
            if (n.type() != pugi::node_element) continue;
            if (std::strcmp(n.name(), "Nested") == 0) {
                nested_skipped += count_calls(n);
                continue;
            }
            HdEvent e;
            e.line = x_.line(n);
            e.start = adjust + time(n, "time");
            e.end = adjust + time(n, "end");
            if (e.end < e.start)
                x_.fail(n, fmt::format("<{}> ends (end='{}') before it starts (time='{}')",
                                       n.name(), n.attribute("end").as_string(),
                                       n.attribute("time").as_string()));
            if (!convert(n, e)) {
                if (!options_.skip_unknown)
                    x_.fail(n, fmt::format("unsupported record <{}>", n.name()));
                ++report_.skipped[n.name()];
                continue;
            }
            events_.push_back(std::move(e));
        }
        return std::move(events_);
    }

  private:
    static std::uint64_t count_calls(pugi::xml_node nested) {
        std::uint64_t k = 0;
        for (pugi::xml_node c : nested.children())
            if (c.type() == pugi::node_element)
                k += std::strcmp(c.name(), "Nested") == 0 ? count_calls(c) : 1;
        return k;
    }

    Ps time(pugi::xml_node n, const char* attr) const {
        const pugi::xml_attribute a = n.attribute(attr);
        if (!a) x_.fail(n, fmt::format("<{}> needs attribute '{}' (seconds)", n.name(), attr));
        const auto v = parse_seconds(a.as_string());
        if (!v)
            x_.fail(n, fmt::format("<{}> {}='{}': expected seconds as a decimal number (e.g. "
                                   "1.034413), at most 12 decimals",
                                   n.name(), attr, a.as_string()));
        return *v;
    }
    std::int64_t integer(pugi::xml_node n, const char* attr) const {
        const pugi::xml_attribute a = n.attribute(attr);
        if (!a) x_.fail(n, fmt::format("<{}> needs attribute '{}'", n.name(), attr));
        const auto v = parse_int(a.as_string());
        if (!v)
            x_.fail(n, fmt::format("<{}> {}='{}': expected a whole number", n.name(), attr,
                                   a.as_string()));
        return *v;
    }
    std::uint64_t bytes(pugi::xml_node n, const char* attr) const {
        const std::int64_t v = integer(n, attr);
        if (v < 0)
            x_.fail(n, fmt::format("<{}> {}='{}': expected a size in bytes", n.name(), attr, v));
        return static_cast<std::uint64_t>(v);
    }
    std::uint32_t handle(pugi::xml_node n, const char* attr) const {
        const std::int64_t v = integer(n, attr);
        if (v < 0 || v > 0xffffffffLL)
            x_.fail(n, fmt::format("<{}> {}='{}': expected a non-negative id", n.name(), attr, v));
        return static_cast<std::uint32_t>(v);
    }

    // The communicator `cid` (required unless `optional`; absent: WORLD).
    std::int32_t cid_of(pugi::xml_node n, bool optional = false) const {
        if (optional && !n.attribute("cid")) return p_.world_cid;
        const std::int64_t cid = integer(n, "cid");
        const auto it = p_.comms.find(static_cast<std::int32_t>(cid));
        if (it == p_.comms.end())
            x_.fail(n,
                    fmt::format("cid {} is not in the communicator list of {}", cid, proj_.path()));
        if (!it->second.local_of.count(rank_))
            x_.fail(n, fmt::format("rank {} is not a member of communicator cid {}", rank_, cid));
        return static_cast<std::int32_t>(cid);
    }
    std::int32_t handle_of(std::int32_t cid) const {
        if (cid == p_.world_cid) return 0;
        return cid == 0 ? p_.world_cid : cid;
    }
    // A world rank attribute -> the rank in communicator `cid` (negative: a wildcard).
    std::int32_t local(pugi::xml_node n, const char* attr, std::int32_t cid,
                       std::int32_t wildcard) const {
        const std::int64_t w = integer(n, attr);
        if (w < 0) return wildcard;
        const Communicator& c = p_.comms.at(cid);
        const auto it = c.local_of.find(static_cast<std::int32_t>(w));
        if (it == c.local_of.end())
            x_.fail(n, fmt::format("<{}> {}='{}': world rank {} is not in communicator cid {}",
                                   n.name(), attr, w, w, cid));
        return it->second;
    }
    std::int32_t world(pugi::xml_node n, const char* attr) const {
        const std::int64_t w = integer(n, attr);
        return w < 0 ? -1 : static_cast<std::int32_t>(w);
    }
    std::int32_t tag(pugi::xml_node n, const char* attr) const {
        const std::int64_t t = integer(n, attr);
        return t < 0 ? mpi::kAnyTag : static_cast<std::int32_t>(t);
    }

    void collective(HdEvent& e, pugi::xml_node n, mpi::CollOp op, const char* size_attr,
                    const char* root_attr) {
        e.rec.kind = mpi::OpKind::Collective;
        e.rec.coll = op;
        e.cid = cid_of(n, op == mpi::CollOp::Barrier);
        e.rec.comm = handle_of(e.cid);
        if (size_attr != nullptr) e.rec.bytes = bytes(n, size_attr);
        if (root_attr != nullptr) {
            e.rec.root = local(n, root_attr, e.cid, -1);
            if (e.rec.root < 0)
                x_.fail(n, fmt::format("<{}> {}: expected a rank", n.name(), root_attr));
        }
    }
    void v_collective(HdEvent& e, pugi::xml_node n, mpi::CollOp op, const char* size_attr,
                      const char* root_attr) {
        collective(e, n, op, nullptr, root_attr);
        e.fix = Fix::VCounts;
        e.occurrence = occurrences_[{e.cid, static_cast<int>(op)}]++;
        if (size_attr != nullptr) e.row = {bytes(n, size_attr)};
    }

    ViewState& view(std::uint32_t file) { return views_[file]; }
    // The handle of the open file `fid` names.
    std::uint32_t open_file(pugi::xml_node n) const {
        const std::uint32_t fid = handle(n, "fid");
        const auto it = files_.find(fid);
        if (it == files_.end())
            x_.fail(n, fmt::format("<{}> fid='{}': the file is not open (no File_open with that "
                                   "fid before)",
                                   n.name(), fid));
        return it->second;
    }

    void file_io(HdEvent& e, pugi::xml_node n, mpi::OpKind at_kind, mpi::OpKind pointer_kind,
                 bool explicit_offset) {
        e.rec.file = open_file(n);
        e.rec.bytes = bytes(n, "size");
        const ViewState& v = view(e.rec.file);
        if (explicit_offset) {  // *_at: the offset argument, in etypes of the view
            e.rec.kind = at_kind;
            e.rec.offset = bytes(n, "offset") * v.etype;
        } else if (v.identity && n.attribute("offset")) {
            // File_write / File_read log the byte offset the call accessed; without a view
            // that is the view offset, so the call replays as its *_at form there.
            e.rec.kind = at_kind;
            e.rec.offset = bytes(n, "offset");
            used_offsets_ = true;
        } else {
            e.rec.kind = pointer_kind;  // the runtime keeps the individual file pointer
        }
    }

    // The size of datatype `tid` of this rank (0: unknown). Each type's size is computed once
    // (a STRUCT naming one type three times, 32 levels deep, took 3^32 steps); a type that
    // contains itself, or a size past 64 bits, is an error at the type's line.
    std::uint64_t type_size(std::int64_t tid) const {
        std::vector<std::int64_t> path;
        return type_size(tid, path);
    }
    std::uint64_t type_size(std::int64_t tid, std::vector<std::int64_t>& path) const {
        if (const auto it = type_sizes_.find(tid); it != type_sizes_.end()) return it->second;
        const pugi::xml_node t = type_node(tid);
        if (!t) return 0;
        if (std::find(path.begin(), path.end(), tid) != path.end())
            proj_.fail(t, fmt::format("datatype {} of rank {} contains itself", tid, rank_));
        if (path.size() >= kMaxTypeDepth)
            proj_.fail(t, fmt::format("datatype {} of rank {} is nested more than {} types deep",
                                      tid, rank_, kMaxTypeDepth));
        path.push_back(tid);
        const auto times = [&](std::uint64_t a, std::uint64_t b) {
            std::uint64_t r = 0;
            if (__builtin_mul_overflow(a, b, &r))
                proj_.fail(t, fmt::format("datatype {} of rank {}: its size passes 2^64 bytes", tid,
                                          rank_));
            return r;
        };
        const std::string kind = t.name();
        std::uint64_t size = 0;
        if (kind == "NAMED") {
            size = named_size(t.attribute("name").as_string());
        } else if (kind == "VECTOR" || kind == "HVECTOR") {
            size = times(
                times(t.attribute("count").as_ullong(), t.attribute("blocklength").as_ullong()),
                type_size(t.attribute("oldType").as_llong(), path));
        } else if (kind == "CONTIGUOUS") {
            size = times(t.attribute("count").as_ullong(),
                         type_size(t.attribute("oldType").as_llong(), path));
        } else if (kind == "STRUCT") {
            for (pugi::xml_node c : t.children("Type")) {
                const std::uint64_t part = times(c.attribute("blocklen").as_ullong(),
                                                 type_size(c.attribute("id").as_llong(), path));
                if (__builtin_add_overflow(size, part, &size))
                    proj_.fail(t, fmt::format("datatype {} of rank {}: its size passes 2^64 bytes",
                                              tid, rank_));
            }
        }
        path.pop_back();
        type_sizes_.emplace(tid, size);
        return size;
    }
    pugi::xml_node type_node(std::int64_t tid) const {
        for (pugi::xml_node r : p_.datatypes.children("Rank")) {
            if (r.attribute("name").as_llong(-1) != rank_) continue;
            for (pugi::xml_node t : r.children())
                if (t.attribute("id").as_llong(-1) == tid) return t;
        }
        return {};
    }
    void set_view(HdEvent& e, pugi::xml_node n) {
        e.rec.kind = mpi::OpKind::FileSetView;
        e.rec.file = open_file(n);
        e.rec.offset = bytes(n, "offset");
        ViewState& v = view(e.rec.file);
        v.etype = n.attribute("etid") ? type_size(integer(n, "etid")) : 1;
        if (v.etype == 0) {
            v.etype = 1;
            note(
                fmt::format("{}:{}: etype {} of File_set_view has no known size: offsets are "
                            "taken as bytes",
                            x_.path(), e.line, n.attribute("etid").as_string()));
        }
        bool contiguous = true;
        if (n.attribute("filetid")) {
            const pugi::xml_node ft = type_node(integer(n, "filetid"));
            const std::string kind = ft ? ft.name() : "";
            if (kind == "VECTOR" && ft.attribute("count").as_ullong() > 1 &&
                ft.attribute("stride").as_ullong() != ft.attribute("blocklength").as_ullong()) {
                const std::uint64_t el = type_size(ft.attribute("oldType").as_llong());
                e.rec.view_block = ft.attribute("blocklength").as_ullong() * el;
                e.rec.view_stride = ft.attribute("stride").as_ullong() * el;
                contiguous = e.rec.view_block == 0;
                if (contiguous) e.rec.view_stride = 0;
            } else if (kind != "NAMED" && kind != "CONTIGUOUS" && kind != "VECTOR") {
                note(
                    fmt::format("{}:{}: file type {} of File_set_view is not a vector: the "
                                "view is replayed as contiguous",
                                x_.path(), e.line, n.attribute("filetid").as_string()));
            }
        }
        v.identity = contiguous && e.rec.offset == 0 && v.etype == 1;
    }

    void note(std::string s) { report_.notes.push_back(std::move(s)); }

    // Fills `e` for element `n`; false if the element is not supported.
    bool convert(pugi::xml_node n, HdEvent& e) {
        const std::string name = n.name();
        if (is_local(name)) {
            e.local = true;
            return true;
        }
        if (name == "Wait" || name == "Waitall") return wait(n, e), true;
        return point_to_point(name, n, e) || collective_call(name, n, e) || file_call(name, n, e);
    }

    // Sends, receives and Sendrecv; false: `name` is none of them.
    bool point_to_point(const std::string& name, pugi::xml_node n, HdEvent& e) {
        Record& r = e.rec;
        using K = mpi::OpKind;
        if (name == "Send" || name == "Bsend" || name == "Ssend" || name == "Rsend" ||
            name == "Isend" || name == "Ibsend" || name == "Issend" || name == "Irsend") {
            const bool nb = name[0] == 'I';
            r.kind = nb ? K::Isend : K::Send;
            e.cid = cid_of(n);
            r.comm = handle_of(e.cid);
            r.peer = local(n, "toRank", e.cid, -1);
            if (r.peer < 0) x_.fail(n, fmt::format("<{}> toRank: expected a rank", name));
            r.tag = static_cast<std::int32_t>(integer(n, "toTag"));
            r.bytes = bytes(n, "size");
            if (nb) r.handle = handle(n, "rid");
            e.sends = true;
            e.src = rank_;
            e.dst = world(n, "toRank");
            e.tag = r.tag;
            return true;
        }
        if (name == "Recv" || name == "Irecv") {
            r.kind = name == "Irecv" ? K::Irecv : K::Recv;
            e.cid = cid_of(n);
            r.comm = handle_of(e.cid);
            r.peer = local(n, "fromRank", e.cid, mpi::kAnySource);
            r.tag = tag(n, "fromTag");
            if (name == "Irecv") r.handle = handle(n, "rid");
            if (n.attribute("size")) {
                r.bytes = bytes(n, "size");
            } else {
                e.fix = Fix::RecvBytes;
                e.src = world(n, "fromRank");
                e.dst = rank_;
                e.tag = r.tag;
            }
            return true;
        }
        if (name == "Sendrecv" || name == "Sendrecv_replace") {
            r.kind = K::Sendrecv;
            e.cid = cid_of(n);
            r.comm = handle_of(e.cid);
            r.peer = local(n, "toRank", e.cid, -1);
            if (r.peer < 0) x_.fail(n, fmt::format("<{}> toRank: expected a rank", name));
            r.tag = static_cast<std::int32_t>(integer(n, "toTag"));
            r.bytes = bytes(n, name == "Sendrecv" ? "size" : "sendSize");
            r.peer2 = local(n, "fromRank", e.cid, mpi::kAnySource);
            r.tag2 = tag(n, "fromTag");
            if (name == "Sendrecv_replace") {
                r.bytes2 = r.bytes;  // one buffer: the same size comes back
            } else {
                e.fix = Fix::SendrecvBytes;
            }
            e.sends = true;
            e.src = world(n, "fromRank");  // receive side (the send side is rank_ -> dst)
            e.dst = world(n, "toRank");
            e.tag = r.tag;
            return true;
        }
        return false;
    }

    // <Wait> and <Waitall>: HDTrace's request ids (rid) are the records' handles, one <For>
    // each; the records as the other readers make them (push_waits), one Waitall for
    // consecutive ids, else one Wait each, all but the last taking no time.
    void wait(pugi::xml_node n, HdEvent& e) {
        std::vector<std::uint32_t> rids;
        for (pugi::xml_node f : n.children("For")) rids.push_back(handle(f, "rid"));
        if (rids.empty()) x_.fail(n, fmt::format("<{}> lists no <For rid=...>", n.name()));
        push_waits(rids, true, [&](const Record& w, bool last) {
            if (last) {
                e.rec.kind = w.kind;
                e.rec.handle = w.handle;
                e.rec.count = w.count;
                return;
            }
            HdEvent x = e;
            x.rec.kind = w.kind;
            x.rec.handle = w.handle;
            x.end = x.start;
            events_.push_back(std::move(x));
        });
    }

    // Collectives; false: `name` is none of them.
    bool collective_call(const std::string& name, pugi::xml_node n, HdEvent& e) {
        Record& r = e.rec;
        using C = mpi::CollOp;
        if (name == "Barrier") return collective(e, n, C::Barrier, nullptr, nullptr), true;
        if (name == "Bcast") return collective(e, n, C::Bcast, "size", "rootRank"), true;
        if (name == "Reduce") return collective(e, n, C::Reduce, "size", "rootRank"), true;
        if (name == "Allreduce") return collective(e, n, C::Allreduce, "size", nullptr), true;
        if (name == "Gather") return collective(e, n, C::Gather, "size", "root"), true;
        if (name == "Scatter") return collective(e, n, C::Scatter, "recvSize", "root"), true;
        if (name == "Allgather") return collective(e, n, C::Allgather, "size", nullptr), true;
        if (name == "Alltoall") return collective(e, n, C::Alltoall, "size", nullptr), true;
        if (name == "Gatherv") return v_collective(e, n, C::Gatherv, "size", "root"), true;
        if (name == "Scatterv") return v_collective(e, n, C::Scatterv, "recvSize", "root"), true;
        if (name == "Allgatherv") return v_collective(e, n, C::Allgatherv, "size", nullptr), true;
        if (name == "Alltoallv") {
            v_collective(e, n, C::Alltoallv, nullptr, nullptr);
            const Communicator& c = p_.comms.at(e.cid);
            e.row.assign(c.world_of.size(), 0);
            for (pugi::xml_node s : n.children("Send"))
                e.row[static_cast<std::size_t>(local(s, "rank", e.cid, 0))] += bytes(s, "size");
            return true;
        }
        if (name == "Reduce_scatter") {
            collective(e, n, C::ReduceScatter, nullptr, nullptr);
            std::set<std::uint64_t> sizes;
            std::uint64_t own = 0;
            for (pugi::xml_node s : n.children("Recv")) {
                sizes.insert(bytes(s, "size"));
                if (world(s, "rank") == rank_) own = bytes(s, "size");
            }
            r.bytes = sizes.empty() ? 0 : *sizes.rbegin();
            if (sizes.size() > 1)
                note(
                    fmt::format("{}:{}: Reduce_scatter with unequal blocks (this rank {} B) is "
                                "replayed with the largest block, {} B, for every rank",
                                x_.path(), e.line, own, r.bytes));
            return true;
        }
        return false;
    }

    // MPI-IO calls; false: `name` is none of them.
    bool file_call(const std::string& name, pugi::xml_node n, HdEvent& e) {
        Record& r = e.rec;
        using K = mpi::OpKind;
        if (name == "File_open") {
            r.kind = K::FileOpen;
            e.cid = cid_of(n);
            r.comm = handle_of(e.cid);
            // A fresh handle per open (HDTrace reuses a file's fid when it is reopened).
            r.file = next_file_++;
            files_[handle(n, "fid")] = r.file;
            const pugi::xml_attribute fname = n.attribute("name");
            if (!fname) x_.fail(n, "<File_open> needs attribute 'name'");
            path_names_.push_back(fname.as_string());
            r.path = static_cast<std::int32_t>(path_names_.size() - 1);  // fixed up on emit
            views_[r.file] = ViewState{};
            return true;
        }
        if (name == "File_close") {
            r.kind = K::FileClose;
            r.file = open_file(n);
            files_.erase(handle(n, "fid"));
            return true;
        }
        if (name == "File_sync") {
            r.kind = K::FileSync;
            r.file = open_file(n);
            return true;
        }
        if (name == "File_write") return file_io(e, n, K::FileWriteAt, K::FileWrite, false), true;
        if (name == "File_read") return file_io(e, n, K::FileReadAt, K::FileRead, false), true;
        if (name == "File_write_all")
            return file_io(e, n, K::FileWriteAtAll, K::FileWriteAll, false), true;
        if (name == "File_read_all")
            return file_io(e, n, K::FileReadAtAll, K::FileReadAll, false), true;
        if (name == "File_write_at") return file_io(e, n, K::FileWriteAt, K::FileWrite, true), true;
        if (name == "File_read_at") return file_io(e, n, K::FileReadAt, K::FileRead, true), true;
        if (name == "File_write_at_all")
            return file_io(e, n, K::FileWriteAtAll, K::FileWriteAll, true), true;
        if (name == "File_read_at_all")
            return file_io(e, n, K::FileReadAtAll, K::FileReadAll, true), true;
        if (name == "File_set_view") return set_view(e, n), true;
        if (name == "File_seek") {
            r.kind = K::FileSeek;
            r.file = open_file(n);
            const ViewState& v = view(r.file);
            if (v.identity && n.attribute("offset")) {  // the resulting byte offset
                r.whence = mpi::kSeekSet;
                r.offset = bytes(n, "offset");
            } else {
                const std::string w = n.attribute("whence").as_string();
                r.whence = w == "SEEK_CUR"   ? mpi::kSeekCur
                           : w == "SEEK_END" ? mpi::kSeekEnd
                                             : mpi::kSeekSet;
                r.offset = bytes(n, "relative-offset") * v.etype;
            }
            return true;
        }
        return false;
    }

    static bool is_local(const std::string& name) {
        static const std::set<std::string> calls = {"Init",
                                                    "Init_thread",
                                                    "Finalize",
                                                    "Comm_free",
                                                    "Comm_rank",
                                                    "Comm_size",
                                                    "Comm_dup",
                                                    "Comm_split",
                                                    "Comm_create",
                                                    "Comm_group",
                                                    "Group_free",
                                                    "Group_incl",
                                                    "Get_count",
                                                    "Get_elements",
                                                    "Pcontrol",
                                                    "Wtime",
                                                    "Iprobe",
                                                    "Request_free",
                                                    "File_get_position",
                                                    "File_get_size",
                                                    "File_set_size",
                                                    "File_preallocate",
                                                    "File_set_info",
                                                    "File_get_info",
                                                    "File_set_atomicity",
                                                    "File_get_view",
                                                    "File_delete",
                                                    "Info_create",
                                                    "Info_set",
                                                    "Info_free",
                                                    "Abort"};
        return calls.count(name) != 0 || name.rfind("Type_", 0) == 0;
    }

  public:
    bool used_offsets() const { return used_offsets_; }
    const std::vector<std::string>& path_names() const { return path_names_; }

  private:
    static constexpr std::size_t kMaxTypeDepth = 64;
    mutable std::map<std::int64_t, std::uint64_t> type_sizes_;  // of this rank
    const Project& p_;
    const XmlFile& proj_;
    const XmlFile& x_;
    std::int32_t rank_;
    const ReadOptions& options_;
    ReadReport& report_;
    std::vector<HdEvent> events_;
    std::map<std::pair<std::int32_t, int>, std::uint64_t> occurrences_;
    std::map<std::uint32_t, ViewState> views_;      // file handle -> its view
    std::map<std::uint32_t, std::uint32_t> files_;  // open fid -> file handle
    std::uint32_t next_file_ = 0;
    std::vector<std::string> path_names_;
    bool used_offsets_ = false;
};

}  // namespace

std::vector<HdEvent> hdtrace_in::read_rank_events(const Project& p, const XmlFile& proj,
                                                  const XmlFile& trc, std::int32_t rank,
                                                  const ReadOptions& options, ReadReport& report,
                                                  std::uint64_t& nested_skipped,
                                                  std::vector<std::string>& path_names,
                                                  bool& used_offsets) {
    HdRankReader rr(p, proj, trc, rank, options, report);
    std::vector<HdEvent> events = rr.read(nested_skipped);
    path_names = rr.path_names();
    used_offsets = rr.used_offsets();
    return events;
}

}  // namespace clustersim::traces
