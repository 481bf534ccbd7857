// Reading GOAL text (traces/goal.hpp): a scanner over the whole file and one statement per
// line, as LogGOPSim's txt2bin reads it:
//   num_ranks N
//   rank R {
//   [LABEL:] send Nb to R [tag T] [cpu C] [nic K]
//   [LABEL:] recv Nb from R|-1 [tag T|-1] [cpu C] [nic K]
//   [LABEL:] calc N [cpu C]
//   LABEL requires LABEL      (completed before)   LABEL irequires LABEL   (started before)
//   }
// with // and /* */ comments. Labels are per rank and must be defined before a dependency
// names them.
#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "traces/goal.hpp"
#include "traces/text.hpp"

namespace clustersim::traces {

namespace {

enum class GoalTok : std::uint8_t { Word, Int, AnyNum, Colon, Open, Close, Newline, End };

struct GoalToken {
    GoalTok kind = GoalTok::End;
    std::string_view text;
    std::uint32_t line = 1;
};

class GoalScanner {
  public:
    GoalScanner(std::string_view text, const std::string& path) : s_(text), path_(path) {}

    GoalToken next() {
        for (;;) {
            while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\r')) ++at_;
            if (at_ + 1 < s_.size() && s_[at_] == '/' && s_[at_ + 1] == '/') {
                while (at_ < s_.size() && s_[at_] != '\n') ++at_;
                continue;
            }
            if (at_ + 1 < s_.size() && s_[at_] == '/' && s_[at_ + 1] == '*') {
                const std::uint32_t from = line_;
                at_ += 2;
                for (;;) {
                    if (at_ + 1 >= s_.size())
                        throw InputError(path_, static_cast<int>(from),
                                         "a /* comment that is never closed with */");
                    if (s_[at_] == '*' && s_[at_ + 1] == '/') break;
                    if (s_[at_] == '\n') ++line_;
                    ++at_;
                }
                at_ += 2;
                continue;
            }
            break;
        }
        GoalToken t;
        t.line = line_;
        if (at_ >= s_.size()) return t;
        const std::size_t from = at_;
        const char c = s_[at_];
        auto alpha = [](char x) { return (x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z'); };
        auto digit = [](char x) { return x >= '0' && x <= '9'; };
        if (c == '\n') {
            ++at_;
            ++line_;
            t.kind = GoalTok::Newline;
        } else if (c == ':' || c == '{' || c == '}') {
            ++at_;
            t.kind = c == ':' ? GoalTok::Colon : c == '{' ? GoalTok::Open : GoalTok::Close;
        } else if (alpha(c)) {
            while (at_ < s_.size() && (alpha(s_[at_]) || digit(s_[at_]) || s_[at_] == '_')) ++at_;
            t.kind = GoalTok::Word;
        } else if (digit(c)) {
            while (at_ < s_.size() && digit(s_[at_])) ++at_;
            t.kind = GoalTok::Int;
        } else if (c == '-' && at_ + 1 < s_.size() && s_[at_ + 1] == '1' &&
                   (at_ + 2 >= s_.size() || !digit(s_[at_ + 2]))) {
            at_ += 2;
            t.kind = GoalTok::AnyNum;
        } else {
            const unsigned char u = static_cast<unsigned char>(c);
            throw InputError(path_, static_cast<int>(line_),
                             u >= 0x21 && u < 0x7f ? fmt::format("unexpected character '{}'", c)
                                                   : fmt::format("unexpected byte 0x{:02x}",
                                                                 static_cast<unsigned>(u)));
        }
        t.text = s_.substr(from, at_ - from);
        return t;
    }

  private:
    std::string_view s_;
    const std::string& path_;
    std::size_t at_ = 0;
    std::uint32_t line_ = 1;
};

std::string show(const GoalToken& t) {
    switch (t.kind) {
        case GoalTok::Newline:
            return "the end of the line";
        case GoalTok::End:
            return "the end of the file";
        default:
            return fmt::format("'{}'", t.text);
    }
}

// Reads one schedule statement by statement.
class GoalParser {
  public:
    GoalParser(std::string_view text, const std::string& path) : scan_(text, path), path_(path) {
        out_.path = path;
    }

    GoalSchedule parse() {
        advance();
        for (;;) {
            if (tok_.kind == GoalTok::End) break;
            if (tok_.kind == GoalTok::Newline) {
                advance();
                continue;
            }
            statement();
        }
        if (rank_ >= 0)
            fail(block_line_, fmt::format("the block of rank {} is never closed with '}}'", rank_));
        if (!have_ranks_) fail(tok_.line, "no num_ranks line: the file holds no schedule");
        out_.succ_begin.push_back(out_.succ.size());
        // A rank costs the run a few KiB: ranks without a block are bounded as a trace's ranks
        // without records are (traces::kMaxIdleRanks), so a short file cannot ask for gigabytes.
        const std::uint64_t idle = out_.ranks - blocks_.size();
        if (idle > static_cast<std::uint64_t>(kMaxIdleRanks))
            fail(ranks_line_,
                 fmt::format("num_ranks {} with {} rank blocks: at most {} ranks without a block "
                             "(docs/limits.md)",
                             out_.ranks, blocks_.size(), kMaxIdleRanks));
        out_.begin.assign(out_.ranks, out_.ops.size());
        out_.count.assign(out_.ranks, 0);
        for (const Block& b : blocks_) {
            out_.begin[b.rank] = b.begin;
            out_.count[b.rank] = b.count;
        }
        return std::move(out_);
    }

  private:
    [[noreturn]] void fail(std::uint32_t line, const std::string& what) const {
        throw InputError(path_, static_cast<int>(line), what);
    }
    void advance() { tok_ = scan_.next(); }
    bool word(std::string_view w) const { return tok_.kind == GoalTok::Word && tok_.text == w; }

    std::uint64_t number(const char* what) {
        if (tok_.kind != GoalTok::Int)
            fail(tok_.line, fmt::format("expected {} (a number), not {}", what, show(tok_)));
        std::uint64_t v = 0;
        for (const char c : tok_.text) {
            const auto d = static_cast<std::uint64_t>(c - '0');
            if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
                fail(tok_.line, fmt::format("{} {} does not fit in 64 bits", what, tok_.text));
            v = v * 10 + d;
        }
        advance();
        return v;
    }

    void end_of_statement(const char* what) {
        if (tok_.kind == GoalTok::Newline) {
            advance();
            return;
        }
        if (tok_.kind == GoalTok::End) return;
        fail(tok_.line,
             fmt::format("expected the end of the line after {}, not {}", what, show(tok_)));
    }

    void statement() {
        const std::uint32_t line = tok_.line;
        if (tok_.kind == GoalTok::Close) {
            if (rank_ < 0) fail(line, "'}' without a rank block to close");
            close_rank();
            advance();
            return;
        }
        if (tok_.kind != GoalTok::Word)
            fail(line, fmt::format("expected num_ranks, rank, send, recv, calc, a label or '}}', "
                                   "not {}",
                                   show(tok_)));
        if (word("num_ranks")) {
            advance();
            if (have_ranks_) fail(line, "a second num_ranks line");
            if (rank_ >= 0) fail(line, "num_ranks inside a rank block");
            const std::uint64_t n = number("the number of ranks");
            if (n == 0 || n > mpi::kMaxRanks)
                fail(line,
                     fmt::format("num_ranks {}: a schedule has 1 to {} ranks (docs/limits.md)", n,
                                 mpi::kMaxRanks));
            out_.ranks = static_cast<std::uint32_t>(n);
            ranks_line_ = line;
            seen_.assign(n, false);  // 2 MiB at most; per-rank tables once the blocks are known
            have_ranks_ = true;
            return;
        }
        if (word("rank")) {
            advance();
            if (rank_ >= 0)
                fail(line,
                     fmt::format("rank inside the block of rank {} (a '}}' is missing)", rank_));
            if (!have_ranks_) fail(line, "a rank block before the num_ranks line");
            const std::uint64_t r = number("a rank");
            if (r >= out_.ranks)
                fail(line, fmt::format("rank {} is out of range: num_ranks is {}", r, out_.ranks));
            if (seen_[r]) fail(line, fmt::format("a second block of rank {}", r));
            if (tok_.kind != GoalTok::Open)
                fail(tok_.line, fmt::format("expected '{{' after rank {}, not {}", r, show(tok_)));
            advance();
            seen_[r] = true;
            rank_ = static_cast<std::int64_t>(r);
            block_line_ = line;
            block_begin_ = out_.ops.size();
            block_count_ = 0;
            return;
        }
        if (word("send") || word("recv") || word("calc")) {
            operation(std::string_view{}, line);
            return;
        }
        // Any other word is a label (as in txt2bin's first state: `b`, `to` or `tag` too).
        // A label: LABEL: operation, or LABEL requires|irequires LABEL.
        const std::string_view label = tok_.text;
        advance();
        if (tok_.kind == GoalTok::Colon) {
            advance();
            if (!(word("send") || word("recv") || word("calc")))
                fail(tok_.line, fmt::format("expected send, recv or calc after '{}:', not {}",
                                            label, show(tok_)));
            operation(label, line);
            return;
        }
        if (word("requires") || word("irequires")) {
            const bool start = word("irequires");
            advance();
            if (tok_.kind != GoalTok::Word)
                fail(tok_.line, fmt::format("expected a label after {}, not {}",
                                            start ? "irequires" : "requires", show(tok_)));
            const std::string_view first = tok_.text;
            advance();
            end_of_statement("a dependency");
            if (rank_ < 0) fail(line, "a dependency outside a rank block");
            const std::uint32_t after = lookup(label, line), before = lookup(first, line);
            edges_.push_back({before, after | (start ? GoalSchedule::kStartEdge : 0u)});
            return;
        }
        fail(line, fmt::format("'{}' is not a GOAL keyword (num_ranks, rank, send, recv, calc, "
                               "requires, irequires), nor a label followed by ':', requires or "
                               "irequires ({} follows it)",
                               label, show(tok_)));
    }

    std::uint32_t lookup(std::string_view label, std::uint32_t line) const {
        const auto it = labels_.find(std::string(label));
        if (it == labels_.end())
            fail(line, fmt::format("label '{}' is not defined in rank {} before this line", label,
                                   rank_));
        return it->second;
    }

    void operation(std::string_view label, std::uint32_t line) {
        if (rank_ < 0) fail(line, fmt::format("{} outside a rank block", tok_.text));
        GoalOp op;
        op.line = line;
        op.kind = word("send") ? GoalKind::Send : word("recv") ? GoalKind::Recv : GoalKind::Calc;
        advance();
        if (op.kind == GoalKind::Calc) {
            op.size = number("a calc's time in ns");
            if (op.size > kMaxGoalCalcNs)
                fail(line, fmt::format("calc {} ns is longer than the longest a run may time "
                                       "({} ns, 2^63 ps)",
                                       op.size, kMaxGoalCalcNs));
        } else {
            const bool send = op.kind == GoalKind::Send;
            op.size = number(send ? "a send's size in bytes" : "a receive's size in bytes");
            if (!word("b"))
                fail(tok_.line, fmt::format("expected 'b' after the size, not {}", show(tok_)));
            advance();
            if (!word(send ? "to" : "from"))
                fail(tok_.line, fmt::format("expected '{}' after the size, not {}",
                                            send ? "to" : "from", show(tok_)));
            advance();
            if (tok_.kind == GoalTok::AnyNum) {
                if (send) fail(tok_.line, "a send to -1: only a receive may name any source");
                op.peer = mpi::kAnySource;
                advance();
            } else {
                const std::uint64_t p = number("a peer rank");
                if (p >= out_.ranks)
                    fail(line, fmt::format("peer rank {} is out of range: num_ranks is {}", p,
                                           out_.ranks));
                op.peer = static_cast<std::int32_t>(p);
            }
            op.tag = 0;
        }
        bool tag = false, cpu = false, nic = false;
        for (;;) {
            if (op.kind != GoalKind::Calc && word("tag") && !tag) {
                tag = true;
                advance();
                if (tok_.kind == GoalTok::AnyNum) {
                    if (op.kind == GoalKind::Send)
                        fail(tok_.line, "a send with tag -1: only a receive may take any tag");
                    op.tag = mpi::kAnyTag;
                    advance();
                } else {
                    const std::uint64_t t = number("a tag");
                    if (t > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
                        fail(line, fmt::format("tag {} is beyond the largest tag, 2^31 - 1", t));
                    op.tag = static_cast<std::int32_t>(t);
                }
            } else if (word("cpu") && !cpu) {
                cpu = true;
                advance();
                (void)number("a CPU number");
            } else if (op.kind != GoalKind::Calc && word("nic") && !nic) {
                nic = true;
                advance();
                (void)number("a NIC number");
            } else {
                break;
            }
        }
        if (cpu || nic) ++out_.annotated;
        end_of_statement(op.kind == GoalKind::Calc ? "a calc" : "a send or receive");
        if (block_count_ == kMaxGoalOpsPerRank)
            fail(line,
                 fmt::format("rank {} has more than {} operations", rank_, kMaxGoalOpsPerRank));
        const std::uint32_t local = block_count_++;
        if (!label.empty()) {
            const auto [it, fresh] = labels_.emplace(std::string(label), local);
            if (!fresh)
                fail(line, fmt::format("label '{}' is defined twice in rank {} (first on line {})",
                                       label, rank_, out_.ops[block_begin_ + it->second].line));
        }
        out_.ops.push_back(op);
    }

    // The rank's block is complete: its dependencies into succ (grouped by the operation
    // depended on), the count per operation, and no cycle.
    void close_rank() {
        const std::uint64_t base = block_begin_;
        const std::uint32_t n = block_count_;
        blocks_.push_back({static_cast<std::uint32_t>(rank_), base, n});
        out_.deps.resize(base + n, 0);
        std::vector<std::uint32_t> outdeg(n + 1, 0);
        for (const auto& [before, after] : edges_) {
            ++outdeg[before + 1];
            ++out_.deps[base + (after & ~GoalSchedule::kStartEdge)];
        }
        for (std::uint32_t i = 0; i < n; ++i) outdeg[i + 1] += outdeg[i];
        const std::uint64_t at = out_.succ.size();
        for (std::uint32_t i = 0; i < n; ++i) out_.succ_begin.push_back(at + outdeg[i]);
        out_.succ.resize(at + edges_.size());
        std::vector<std::uint32_t> fill(outdeg.begin(), outdeg.end() - 1);
        for (const auto& [before, after] : edges_) out_.succ[at + fill[before]++] = after;
        check_acyclic(base, n, at);
        edges_.clear();
        edges_.shrink_to_fit();
        labels_.clear();
        rank_ = -1;
    }

    void check_acyclic(std::uint64_t base, std::uint32_t n, std::uint64_t at) const {
        auto succ_of = [&](std::uint32_t i) {
            const std::uint64_t from = out_.succ_begin[base + i] - at;
            const std::uint64_t to = i + 1 < n ? out_.succ_begin[base + i + 1] - at
                                               : static_cast<std::uint64_t>(edges_.size());
            return std::pair{from, to};
        };
        std::vector<std::uint32_t> left(out_.deps.begin() + static_cast<std::ptrdiff_t>(base),
                                        out_.deps.begin() + static_cast<std::ptrdiff_t>(base + n));
        std::vector<std::uint32_t> todo;
        for (std::uint32_t i = 0; i < n; ++i)
            if (left[i] == 0) todo.push_back(i);
        std::uint32_t done = 0;
        while (!todo.empty()) {
            const std::uint32_t i = todo.back();
            todo.pop_back();
            ++done;
            const auto [from, to] = succ_of(i);
            for (std::uint64_t e = from; e < to; ++e)
                if (--left[out_.succ[at + e] & ~GoalSchedule::kStartEdge] == 0)
                    todo.push_back(out_.succ[at + e] & ~GoalSchedule::kStartEdge);
        }
        if (done == n) return;
        // A cycle among the operations left: walk their successors depth first until one is
        // met again on the path.
        std::vector<std::uint8_t> colour(n, 0);  // 0 new, 1 on the path, 2 finished
        for (std::uint32_t s = 0; s < n; ++s) {
            if (left[s] == 0 || colour[s] != 0) continue;
            std::vector<std::pair<std::uint32_t, std::uint64_t>> path{{s, succ_of(s).first}};
            colour[s] = 1;
            while (!path.empty()) {
                auto& [i, e] = path.back();
                if (e == succ_of(i).second) {
                    colour[i] = 2;
                    path.pop_back();
                    continue;
                }
                const std::uint32_t j = out_.succ[at + e++] & ~GoalSchedule::kStartEdge;
                if (left[j] == 0 || colour[j] == 2) continue;
                if (colour[j] == 1)
                    fail(out_.ops[base + j].line,
                         fmt::format("rank {}: this operation depends on itself through a cycle "
                                     "of requires/irequires",
                                     rank_));
                colour[j] = 1;
                path.emplace_back(j, succ_of(j).first);
            }
        }
        fail(block_line_, fmt::format("rank {}: a dependency cycle", rank_));
    }

    GoalScanner scan_;
    const std::string& path_;
    GoalToken tok_;
    GoalSchedule out_;
    bool have_ranks_ = false;
    std::vector<bool> seen_;
    std::int64_t rank_ = -1;         // the rank whose block is open
    std::uint64_t block_begin_ = 0;  // its first operation in out_.ops
    std::uint32_t block_count_ = 0;  // its operations so far
    std::uint32_t ranks_line_ = 0;
    struct Block {
        std::uint32_t rank;
        std::uint64_t begin;
        std::uint32_t count;
    };
    std::vector<Block> blocks_;
    std::uint32_t block_line_ = 0;
    std::unordered_map<std::string, std::uint32_t> labels_;       // of the open block
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges_;  // (before, after | start)
};

}  // namespace

GoalSchedule parse_goal(const std::string& text, const std::string& path) {
    return GoalParser(text, path).parse();
}

GoalSchedule read_goal(const std::string& path) {
    return parse_goal(read_whole_file(path), path);
}

bool looks_like_goal(const std::string& path, const std::string& head) {
    if (path.size() > 5 && path.compare(path.size() - 5, 5, ".goal") == 0) return true;
    try {
        GoalScanner s(head, path);
        GoalToken t = s.next();
        while (t.kind == GoalTok::Newline) t = s.next();
        return t.kind == GoalTok::Word && t.text == "num_ranks";
    } catch (const InputError&) {
        return false;
    }
}

}  // namespace clustersim::traces
