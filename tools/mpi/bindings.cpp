// redirect_bindings (bindings.hpp): walks the loaded objects (dl_iterate_phdr), and in each
// binding library reads its dynamic section for its symbol and string tables and its two
// relocation tables (DT_JMPREL: the PLT's slots; DT_RELA: the GOT's data slots, which code
// built with -fno-plt calls through). A slot relocated against a symbol of the table is
// overwritten with the table's target. Slots in the object's RELRO segment are read-only by
// now; their page is made writable for the write and read-only again after it.
#include "tools/mpi/bindings.hpp"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>

namespace clustersim::tracer {

namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kJumpSlot = R_X86_64_JUMP_SLOT;
constexpr std::uint32_t kGlobDat = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
constexpr std::uint32_t kJumpSlot = R_AARCH64_JUMP_SLOT;
constexpr std::uint32_t kGlobDat = R_AARCH64_GLOB_DAT;
#else
#define CLUSTERSIM_NO_BINDING_REDIRECT 1
#endif

struct Walk {
    const std::vector<std::string>* libraries;
    std::unordered_map<std::string_view, void*> targets;
    RedirectReport report;
};

#ifndef CLUSTERSIM_NO_BINDING_REDIRECT
// An address from the dynamic section: glibc has already added the load address to these
// entries; a loader that leaves them as written has not.
std::uintptr_t dyn_address(ElfW(Addr) ptr, ElfW(Addr) base) {
    return ptr < base ? ptr + base : ptr;
}

// Writes `to` into the slot at `slot`. `relro_*`: the object's read-only-after-relocation
// range, whose pages must be opened for the write and closed again.
bool write_slot(void** slot, void* to, std::uintptr_t relro_begin, std::uintptr_t relro_end,
                std::string& error) {
    const auto at = reinterpret_cast<std::uintptr_t>(slot);
    if (at < relro_begin || at >= relro_end) {
        *slot = to;
        return true;
    }
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    void* first = reinterpret_cast<void*>(at & ~(page - 1));
    if (::mprotect(first, page, PROT_READ | PROT_WRITE) != 0) {
        if (error.empty())
            error = std::string("cannot make a GOT page writable: ") + std::strerror(errno);
        return false;
    }
    *slot = to;
    ::mprotect(first, page, PROT_READ);
    return true;
}

void redirect_table(const ElfW(Rela) * rela, std::size_t bytes, const ElfW(Sym) * symtab,
                    const char* strtab, ElfW(Addr) base, std::uintptr_t relro_begin,
                    std::uintptr_t relro_end, Walk& walk) {
    const std::size_t n = bytes / sizeof(ElfW(Rela));
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t type = ELF64_R_TYPE(rela[i].r_info);
        if (type != kJumpSlot && type != kGlobDat) continue;
        const std::size_t sym = ELF64_R_SYM(rela[i].r_info);
        if (sym == 0) continue;
        const std::string_view name = strtab + symtab[sym].st_name;
        auto it = walk.targets.find(name);
        if (it == walk.targets.end()) continue;
        void** slot = reinterpret_cast<void**>(base + rela[i].r_offset);
        if (write_slot(slot, it->second, relro_begin, relro_end, walk.report.error))
            ++walk.report.slots;
    }
}

int visit(dl_phdr_info* info, std::size_t, void* data) {
    Walk& walk = *static_cast<Walk*>(data);
    if (info->dlpi_name == nullptr || !is_binding_library(info->dlpi_name, *walk.libraries))
        return 0;
    const ElfW(Addr) base = info->dlpi_addr;
    const ElfW(Dyn)* dyn = nullptr;
    std::uintptr_t relro_begin = 0, relro_end = 0;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn)*>(base + ph.p_vaddr);
        if (ph.p_type == PT_GNU_RELRO) {
            relro_begin = base + ph.p_vaddr;
            relro_end = relro_begin + ph.p_memsz;
        }
    }
    if (dyn == nullptr) return 0;
    const ElfW(Sym)* symtab = nullptr;
    const char* strtab = nullptr;
    const ElfW(Rela)* jmprel = nullptr;
    const ElfW(Rela)* rela = nullptr;
    std::size_t jmprel_bytes = 0, rela_bytes = 0;
    bool plt_is_rela = true;
    for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) {
        switch (d->d_tag) {
            case DT_SYMTAB:
                symtab = reinterpret_cast<const ElfW(Sym)*>(dyn_address(d->d_un.d_ptr, base));
                break;
            case DT_STRTAB:
                strtab = reinterpret_cast<const char*>(dyn_address(d->d_un.d_ptr, base));
                break;
            case DT_JMPREL:
                jmprel = reinterpret_cast<const ElfW(Rela)*>(dyn_address(d->d_un.d_ptr, base));
                break;
            case DT_PLTRELSZ:
                jmprel_bytes = d->d_un.d_val;
                break;
            case DT_PLTREL:
                plt_is_rela = d->d_un.d_val == DT_RELA;
                break;
            case DT_RELA:
                rela = reinterpret_cast<const ElfW(Rela)*>(dyn_address(d->d_un.d_ptr, base));
                break;
            case DT_RELASZ:
                rela_bytes = d->d_un.d_val;
                break;
            default:
                break;
        }
    }
    if (symtab == nullptr || strtab == nullptr) return 0;
    ++walk.report.libraries;
    if (jmprel != nullptr && plt_is_rela)
        redirect_table(jmprel, jmprel_bytes, symtab, strtab, base, relro_begin, relro_end, walk);
    if (rela != nullptr)
        redirect_table(rela, rela_bytes, symtab, strtab, base, relro_begin, relro_end, walk);
    return 0;
}
#endif

}  // namespace

bool is_binding_library(std::string_view path, const std::vector<std::string>& libraries) {
    const std::size_t slash = path.find_last_of('/');
    const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
    for (const std::string& lib : libraries) {
        if (lib.empty() || file.size() < lib.size() + 3) continue;
        if (file.substr(0, lib.size()) == lib && file.substr(lib.size(), 3) == ".so") return true;
    }
    return false;
}

RedirectReport redirect_bindings(const std::vector<std::string>& libraries, const Redirect* table,
                                 std::size_t n) {
    Walk walk;
    walk.libraries = &libraries;
    for (std::size_t i = 0; i < n; ++i) walk.targets.emplace(table[i].from, table[i].to);
#ifdef CLUSTERSIM_NO_BINDING_REDIRECT
    walk.report.error = "redirecting the Fortran bindings is not supported on this architecture";
#else
    ::dl_iterate_phdr(visit, &walk);
#endif
    return walk.report;
}

}  // namespace clustersim::tracer
