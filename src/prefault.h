/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Taking page faults in bulk, ahead of the moment they would cost: a cold
 * launcher's first pages, and a forked pool process's copy-on-write ones. On these VMs one page fault
 * costs about 20 µs in a touch loop, a page populated by
 * madvise(MADV_POPULATE_WRITE) under 1 µs: a cold `acs-launch -- hello.py`
 * took about 86 faults in the launcher itself. See prefault.c.
 */
#pragma once

#include <stddef.h>

/* The launcher's own pages before its first step: stack, heap, data and bss. */
void acs_prefault_start(void);

/* Write-populate the top len bytes of [base, base + size), e.g. a clone stack. */
void acs_prefault_top(void *base, size_t size, size_t len);

/*
 * A forked process shares its pages with its parent until one of them
 * writes a page: then it costs a copy-on-write fault, about 20 us on these
 * VMs (a pooled call took some 40 in its worker, and as many in the server
 * after each refill's fork). Take them ahead, at a quiet moment: every page
 * present in a private writable mapping (of at most 64 MiB: larger ones
 * are reservations, like ASan's shadow) made this process's own
 * (MADV_POPULATE_WRITE, Linux 5.14; pages never touched stay so), and
 * 128 KiB of stack below the caller. Best effort: a kernel without it
 * leaves the faults where they were. About 1-3 ms here.
 */
void acs_prefault_private(void);
