/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pages populated in one madvise each instead of one fault each
 * (prefault.h): a cold launcher's (the stack the kernel mapped below main,
 * malloc's first heap, the executable's data and bss), and a forked pool
 * process's present private pages, made its own before a call arrives.
 *
 * Every step is best effort: a kernel without MADV_POPULATE_WRITE (before
 * 5.14) says EINVAL and the faults stay where they were.
 * Nothing here changes what any page holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prefault.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

#define STACK_PREFAULT (128u << 10) /* the kernel maps 128 KiB of stack at exec, */
#define STACK_STEP (8u << 10)       /* argv and the environment take some of it */

static uintptr_t page_size(void)
{
        static uintptr_t page;
        if (!page)
                page = (uintptr_t)sysconf(_SC_PAGESIZE);
        return page;
}

static void populate(uintptr_t lo, uintptr_t hi, int advice)
{
        uintptr_t page = page_size();
        lo &= ~(page - 1);
        hi = (hi + page - 1) & ~(page - 1);
        if (hi > lo)
                (void)madvise((void *)lo, hi - lo, advice);
}

/*
 * The executable's data and bss past RELRO (relocated before main and
 * read-only since: already there). Its text and read-only data are left to
 * fault-around (64 KiB a fault): populating all of them measured no faster.
 */
static int populate_image(struct dl_phdr_info *info, size_t size, void *data)
{
        (void)size;
        (void)data;
        uintptr_t relro_end = 0;
        for (size_t i = 0; i < info->dlpi_phnum; i++) {
                const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
                if (ph->p_type == PT_GNU_RELRO)
                        relro_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        }
        for (size_t i = 0; i < info->dlpi_phnum; i++) {
                const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
                if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
                        continue;
                uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
                if (relro_end > lo)
                        lo = (relro_end + page_size() - 1) & ~(page_size() - 1);
                populate(lo, hi, MADV_POPULATE_WRITE);
        }
        return 1; /* the executable is the first object named */
}

void acs_prefault_start(void)
{
        /* the stack below this frame: the kernel's first 128 KiB of it is
         * mapped, but how much of that lies below us depends on argv and the
         * environment, and a range that leaves the mapping populates nothing */
        uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
        for (uintptr_t len = STACK_PREFAULT; len >= STACK_STEP; len -= STACK_STEP) {
                uintptr_t lo = (sp - len) & ~(page_size() - 1);
                if (madvise((void *)lo, sp - lo, MADV_POPULATE_WRITE) == 0 || errno != ENOMEM)
                        break;
        }
        /* malloc's first heap (brk): made now, then all of it populated */
        free(malloc(1));
        struct mallinfo2 mi = mallinfo2();
        uintptr_t top = (uintptr_t)sbrk(0);
        if (top != (uintptr_t)-1 && mi.arena > 0 && mi.arena <= top)
                populate(top - mi.arena, top, MADV_POPULATE_WRITE);
        dl_iterate_phdr(populate_image, NULL);
}

void acs_prefault_top(void *base, size_t size, size_t len)
{
        if (len > size)
                len = size;
        populate((uintptr_t)base + size - len, (uintptr_t)base + size, MADV_POPULATE_WRITE);
}

#define PRIVATE_STACK (128u << 10)
#define PRIVATE_MAPPING_MAX (64ul << 20)

/* Write-fault the stack PRIVATE_STACK below the caller (a pooled call's frames, its 64 KiB read
 * buffers): by touching it, since below the mapped part madvise has nothing to populate. */
static __attribute__((noinline)) void prefault_stack(void)
{
        char buf[PRIVATE_STACK];
        explicit_bzero(buf, sizeof buf);
}

void acs_prefault_private(void)
{
        prefault_stack();
        FILE *maps = fopen("/proc/self/maps", "re");
        int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
        unsigned long page = page_size();
        char *line = NULL;
        size_t cap = 0;
        while (maps && pm >= 0 && getline(&line, &cap, maps) > 0) {
                unsigned long lo, hi;
                char perms[5];
                /* not a reservation (ASan's shadow, its allocator: terabytes): nothing of ours is that big */
                if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3 || strcmp(perms, "rw-p") != 0 ||
                    hi - lo > PRIVATE_MAPPING_MAX)
                        continue;
                uint64_t ent[512];
                unsigned long run = 0, a = lo; /* run: start of a run of present pages, 0: none */
                while (a < hi) {
                        size_t n = (hi - a) / page;
                        n = n < 512 ? n : 512;
                        ssize_t got = pread(pm, ent, n * sizeof *ent, (off_t)(a / page * sizeof *ent));
                        if (got <= 0)
                                break;
                        for (size_t i = 0; i < (size_t)got / sizeof *ent; i++, a += page) {
                                bool present = ent[i] >> 63;
                                if (present && !run)
                                        run = a;
                                if (!present && run) {
                                        (void)madvise((void *)run, a - run, MADV_POPULATE_WRITE);
                                        run = 0;
                                }
                        }
                }
                if (run)
                        (void)madvise((void *)run, a - run, MADV_POPULATE_WRITE);
        }
        free(line);
        if (maps)
                fclose(maps);
        if (pm >= 0)
                close(pm);
}
