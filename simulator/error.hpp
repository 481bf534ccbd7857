// User-facing input errors. Every bad input (XML, trace, flag) becomes an InputError whose
// message is one line: "<file>:<line>: <what was expected>". The command prints it and
// exits with code 2. Programming errors are assertions, never InputError.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace clustersim {

class InputError : public std::runtime_error {
  public:
    InputError(std::string file, int line, const std::string& what)
        : std::runtime_error(format(file, line, what)),
          file_(std::move(file)),
          line_(line),
          message_(one_line(what)) {}
    const std::string& file() const { return file_; }
    int line() const { return line_; }
    const std::string& message() const { return message_; }  // without "<file>:<line>: "

  private:
    static std::string format(const std::string& file, int line, const std::string& what) {
        if (file.empty()) return one_line(what);
        if (line <= 0) return one_line(fmt::format("{}: {}", file, what));
        return one_line(fmt::format("{}:{}: {}", file, line, what));
    }
    // The message is one line whatever the input quoted in it holds (an attribute with a
    // newline in it): line breaks are written as \n, \r.
    static std::string one_line(std::string s) {
        if (s.find_first_of("\n\r") == std::string::npos) return s;
        std::string out;
        for (char c : s) {
            if (c == '\n')
                out += "\\n";
            else if (c == '\r')
                out += "\\r";
            else
                out += c;
        }
        return out;
    }
    std::string file_;
    int line_;
    std::string message_;
};

// Every reader calls this before reading `path`. A directory opens like an empty file on
// Linux, so a folder given as a file is named as one instead of "empty file". A character or
// block device never ends (/dev/zero, /dev/urandom) or is a disk: read as a file it would
// grow the reader's buffer until the machine's memory ran out, an allocation no input asked
// for, so it is refused too. A pipe is read to its end (`<(clustersim generate ...)`).
inline void refuse_non_file(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec) return;  // missing or unreadable: the reader's own open names it
    switch (status.type()) {
        case std::filesystem::file_type::directory:
            throw InputError(path, 0, "is a directory; expected a file");
        case std::filesystem::file_type::character:
        case std::filesystem::file_type::block:
            throw InputError(path, 0,
                             "is a device, not a file (a device may never end: it is not read)");
        case std::filesystem::file_type::socket:
            throw InputError(path, 0, "is a socket, not a file");
        default:
            return;
    }
}

// A run that would pass the simulated-time horizon (Time::max(), about 106.75 days). No
// file or line: the message names the component, the simulated time and the horizon. The
// command prints it like an InputError and exits 2.
class HorizonError : public InputError {
  public:
    explicit HorizonError(const std::string& what) : InputError("", 0, what) {}
};

}  // namespace clustersim
