/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The state of a warm run between its halves, shared by run.c and session.c. */
#pragma once

#include <signal.h>
#include <time.h>

#include "cgroup.h"
#include "input.h"
#include "plan.h"
#include "run.h"
#include "sandbox.h"

/* A run between its two halves: the sandbox made, the program not yet supervised. */
struct acs_run_warm {
        acs_run_request req;
        acs_plan p;
        acs_host_facts facts;
        acs_sandbox sb;
        acs_cgroup cg;
        int outp[2], errp[2], scanp[2];
        int sigfd, modfd, trace_fd, patch_fd;
        acs_shield *shield;
        acs_input in;
        sigset_t old;
        bool masked, reported, ended;
        struct timespec run_start;
        uint64_t call_cpu_s;    /* sessions: the next call's CPU limit (acs_run_session_set_cpu) */
        double t0, t_spawn;
        acs_report rep;
};

/* run.c's pieces that a session call reuses */
void acs_run_fill_limits(acs_report *rep, const acs_plan *p);
void acs_run_fill_confinement(acs_report *rep, const acs_sandbox *sb, const acs_cgroup *cg);
int acs_run_finish_workspace(const acs_run_request *req, acs_sandbox *sb, const struct timespec *start,
                             int patch_fd, acs_report *rep, acs_error *err);
