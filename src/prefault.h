/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Taking a cold launcher's page faults in bulk. On these VMs one page fault
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
