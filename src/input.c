/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The program's standard input: /dev/null, a pipe relay, or (asked for) the terminal. See input.h. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "ansi.h"
#include "input.h"

static bool is_dev_null(int fd)
{
        struct stat st;
        return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

/* A new open file description of what fd refers to (so that file flags set
 * on it are not the caller's), placed above the stdio fds. */
static int reopen(int fd, int flags)
{
        char path[32];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        int r = open(path, flags | O_NOCTTY | O_CLOEXEC);
        return r < 0 ? -errno : acs_fd_above_stdio(r);
}

static int open_tty(int fd, acs_input *in, acs_error *err)
{
        int r;
        if (!isatty(fd))
                return acs_error_set(err, -ENOTTY, "usage", "--stdin tty: standard input is not a terminal");
        if (tcgetattr(fd, &in->tio) < 0)
                return acs_error_errno(err, -errno, "stdin", "--stdin tty: cannot read the terminal's settings");
        in->have_ws = ioctl(fd, TIOCGWINSZ, &in->ws) == 0;
        if (ioctl(fd, TIOCGEXCL, &in->excl) < 0)
                in->excl = 0;
        /* The program's own description of the terminal: O_NONBLOCK or
         * O_ASYNC it sets stay its own instead of breaking the caller's shell. */
        if ((r = reopen(fd, O_RDONLY)) < 0)
                return acs_error_errno(err, r, "stdin", "--stdin tty: cannot open the terminal");
        in->prog_fd = r;
        in->tty_fd = fd; /* from now on acs_input_close restores it */
        return 0;
}

static int open_relay(int fd, acs_input *in, acs_error *err)
{
        int p[2], r;
        if (pipe2(p, O_CLOEXEC) < 0)
                return acs_error_errno(err, -errno, "stdin", "pipe");
        in->relay_out = p[1];
        if ((r = acs_fd_above_stdio(p[0])) < 0)
                return acs_error_errno(err, r, "stdin", "pipe");
        in->prog_fd = r;
        /* the pipe is ours: the relay must never wait on it */
        fcntl(in->relay_out, F_SETFL, O_NONBLOCK);
        /* and the program's only through the fd it gets: no second reader
         * or writer opened through /proc/self/fd/0 (mode 0, and the
         * sandbox has no capability to override it) */
        if (fchmod(in->prog_fd, 0) < 0)
                return acs_error_errno(err, -errno, "stdin", "fchmod of the stdin pipe");
        in->relay_in = fd;
        /* A terminal is read by others too (the shell, other jobs): read it
         * through a private non-blocking description, never setting
         * O_NONBLOCK on the one the caller's shell shares. Pipes, files and
         * sockets are read as they are (poll said so: the read returns). */
        if (isatty(fd) && (r = reopen(fd, O_RDONLY | O_NONBLOCK)) >= 0) {
                in->relay_in = r;
                in->own_in = true;
        }
        return 0;
}

int acs_input_open(int fd, acs_stdin_mode mode, acs_input *in, acs_error *err)
{
        *in = (acs_input)ACS_INPUT_NULL;
        if (fd < 0 || mode == ACS_STDIN_NULL)
                return 0;
        if (mode == ACS_STDIN_TTY)
                return open_tty(fd, in, err);
        if (fcntl(fd, F_GETFD) < 0)
                return 0; /* stdin closed: there is nothing to read */
        if (mode == ACS_STDIN_AUTO && (isatty(fd) || is_dev_null(fd)))
                return 0;
        return open_relay(fd, in, err);
}

void acs_input_spawned(acs_input *in)
{
        closep(&in->prog_fd);
        in->prog_fd = -1;
}

void acs_input_pollfd(const acs_input *in, struct pollfd *p)
{
        *p = (struct pollfd){ .fd = -1 };
        if (in->relay_out < 0)
                return;
        if (in->off < in->len)
                *p = (struct pollfd){ .fd = in->relay_out, .events = POLLOUT };
        else
                *p = (struct pollfd){ .fd = in->relay_in, .events = POLLIN };
}

static void relay_end(acs_input *in)
{
        /* EOF for the program; what it did not read is dropped */
        closep(&in->relay_out);
        in->relay_out = -1;
        in->off = in->len = 0;
}

void acs_input_relay(acs_input *in)
{
        if (in->relay_out < 0)
                return;
        if (in->off == in->len) {
                ssize_t n = read(in->relay_in, in->buf, sizeof in->buf);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        return;
                if (n <= 0) {
                        relay_end(in); /* end of input (or an error reading it) */
                        return;
                }
                in->off = 0;
                in->len = (size_t)n;
        }
        /* SIGPIPE is ignored by the launcher: a program that closed its
         * stdin gives EPIPE here, and the relay ends */
        ssize_t n = write(in->relay_out, in->buf + in->off, in->len - in->off);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
        if (n < 0) {
                relay_end(in);
                return;
        }
        in->off += (size_t)n;
}

/* Put the caller's terminal back as it was before the run: everything the
 * program could change through its own description of it. */
static void restore_tty(acs_input *in)
{
        sigset_t ttou, old;
        struct winsize now;
        int fd = in->tty_fd;

        /* a launcher in the background may still restore (no SIGTTOU stop) */
        sigemptyset(&ttou);
        sigaddset(&ttou, SIGTTOU);
        sigprocmask(SIG_BLOCK, &ttou, &old);
        tcflow(fd, TCOON); /* first: TCSAFLUSH waits for output to drain */
        /* TCSAFLUSH: input the program left unread, and any answer it made
         * the terminal send, never reaches the caller's shell */
        tcsetattr(fd, TCSAFLUSH, &in->tio);
        if (in->have_ws && ioctl(fd, TIOCGWINSZ, &now) == 0 && memcmp(&now, &in->ws, sizeof now) != 0)
                ioctl(fd, TIOCSWINSZ, &in->ws);
        ioctl(fd, in->excl ? TIOCEXCL : TIOCNXCL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        in->tty_fd = -1;
}

void acs_input_close(acs_input *in)
{
        if (in->tty_fd >= 0)
                restore_tty(in);
        closep(&in->prog_fd);
        closep(&in->relay_out);
        if (in->own_in)
                closep(&in->relay_in);
        in->prog_fd = in->relay_out = in->relay_in = -1;
        in->own_in = false;
}

void acs_term_fwrite(const char *buf, size_t len, FILE *f, bool strip)
{
        char out[ACS_TERM_FILTER_OUT(4096)];
        acs_term_filter tf = { 0 };
        if (!strip || !isatty(fileno(f))) {
                fwrite(buf, 1, len, f);
                return;
        }
        for (size_t off = 0, n; off < len; off += n) {
                n = len - off < 4096 ? len - off : 4096;
                fwrite(out, 1, acs_term_filter_feed(&tf, buf + off, n, out), f);
        }
}
