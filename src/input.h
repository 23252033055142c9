/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The caller's terminal and the program's standard input (acs-launch(1),
 * --stdin, CONTAINMENT). The caller's
 * terminal is not the program's: by default a terminal on stdin gives the
 * program /dev/null, and anything else reaches it through a pipe that the
 * launcher fills, so the program never holds the caller's own file
 * description (no termios, window size or input flush on the caller's
 * terminal, no file flags shared with the caller's shell, no reopening the
 * caller's file for writing through /proc/self/fd/0). Only --stdin tty hands
 * over the terminal itself; its state is saved first and restored after the
 * run, whatever ended it.
 */
#pragma once

#include <poll.h>
#include <stdio.h>
#include <termios.h>
#include <sys/ioctl.h>

#include "cli.h"

typedef struct acs_input {
        int prog_fd;   /* the program's fd 0; -1: /dev/null */
        int relay_in;  /* what the relay reads (the caller's stdin or a private reopening); -1: none */
        int relay_out; /* the relay's end of the program's stdin pipe; -1: closed */
        bool own_in;   /* relay_in was opened here */
        size_t off, len;
        char buf[16384];
        /* --stdin tty: the caller's terminal and its state before the run */
        int tty_fd; /* not owned; -1: nothing to restore */
        struct termios tio;
        struct winsize ws;
        bool have_ws;
        int excl;
} acs_input;

#define ACS_INPUT_NULL { .prog_fd = -1, .relay_in = -1, .relay_out = -1, .tty_fd = -1 }

/*
 * Decide and prepare what the program reads from, for the caller's stdin fd
 * (-1: none, the program gets /dev/null) and the mode asked for. ACS_STDIN_AUTO:
 * a terminal or /dev/null -> /dev/null; anything else -> the pipe relay.
 * On error (--stdin tty without a terminal) fills err; the caller still
 * calls acs_input_close.
 */
int acs_input_open(int fd, acs_stdin_mode mode, acs_input *in, acs_error *err);
/* The sandbox has started with prog_fd: the launcher's copy is closed. */
void acs_input_spawned(acs_input *in);
/* The pollfd the relay waits on now (fd -1 when it has nothing to do). */
void acs_input_pollfd(const acs_input *in, struct pollfd *p);
/* Move data after poll reported the relay's fd. Never blocks. */
void acs_input_relay(acs_input *in);
/* End the relay, restore the caller's terminal (--stdin tty), close. Idempotent. */
void acs_input_close(acs_input *in);

/* fwrite, except that to a terminal and with strip the bytes go through
 * acs_term_filter: for what the program wrote that the launcher prints
 * after the run (a patch on stdout), exact when it goes to a file or pipe. */
void acs_term_fwrite(const char *buf, size_t len, FILE *f, bool strip);
