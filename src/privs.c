/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Privileges: all capabilities dropped from every set (bounding, ambient,
 * inheritable, permitted, effective), securebits locked so that exec by uid
 * 0 inside cannot regain any, and no_new_privs so no setuid/file-cap binary
 * can either. Uses libcap.
 */
#include <linux/securebits.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox.h"

static void cap_freep(cap_t *c)
{
        if (*c)
                cap_free(*c);
}

int acs_caps_raise_all(acs_error *err)
{
        _cleanup_(cap_freep) cap_t caps = cap_get_proc();
        if (!caps)
                return acs_error_errno(err, -errno, "caps", "cap_get_proc");
        /* effective := permitted */
        for (cap_value_t v = 0; v <= CAP_LAST_CAP && cap_valid(v); v++) {
                cap_flag_value_t on = CAP_CLEAR;
                if (cap_get_flag(caps, v, CAP_PERMITTED, &on) == 0 && on == CAP_SET)
                        cap_set_flag(caps, CAP_EFFECTIVE, 1, &v, CAP_SET);
        }
        if (cap_set_proc(caps) < 0)
                return acs_error_errno(err, -errno, "caps", "cap_set_proc");
        return 0;
}

int acs_drop_privileges(acs_error *err)
{
        /* Lock the securebits while we still hold CAP_SETPCAP. */
        if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                             SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                                             SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED) < 0)
                return acs_error_errno(err, -errno, "caps", "PR_SET_SECUREBITS");
        if (cap_reset_ambient() < 0)
                return acs_error_errno(err, -errno, "caps", "clearing the ambient set");
        int last = (int)cap_max_bits();
        for (int v = 0; v < last; v++)
                if (cap_drop_bound((cap_value_t)v) < 0 && errno != EINVAL)
                        return acs_error_errno(err, -errno, "caps", "dropping capability %d from the bounding set", v);
        /* every set empty, by capset(2) itself: libcap's cap_init() allocates,
         * and the fast path's pid 1 runs in the launcher's memory, where
         * nothing may be allocated after the clone (sandbox.c) */
        struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { { 0 } };
        if (syscall(SYS_capset, &hdr, none) < 0)
                return acs_error_errno(err, -errno, "caps", "clearing capabilities");
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return acs_error_errno(err, -errno, "caps", "PR_SET_NO_NEW_PRIVS");
        return 0;
}
