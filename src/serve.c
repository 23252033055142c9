/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `acs-launch serve` (mcp.h). A pre-forking server: the master owns the
 * listening socket and keeps one spare connection process, which starts the
 * MCP server's state and its pool of ready sandboxes (pool.h) and only then
 * accepts; when it takes a client for good it tells the master, which
 * starts the next spare, so a client that connects finds sandboxes already
 * waiting. An MCP client is taken for good at once: its connection process
 * serves it alone (acs_mcp_main_on) and exits at its EOF with everything it
 * started. A CLI's quick run (serve-cli.h) is not: the spare refills its
 * pool and accepts the next client, so a CLI that calls again and again
 * does not pay for a new pool each time (see on_alarm for "quick").
 * Everything dies with the master: each process's PR_SET_PDEATHSIG chains
 * down to the sandboxes.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "cli-session.h"
#include "mcp.h"
#include "serve-cli.h"

/* The socket systemd passed (sd_listen_fds(3): LISTEN_PID, LISTEN_FDS, fd 3), or -1. */
static int systemd_socket(void)
{
        const char *pid = getenv("LISTEN_PID"), *n = getenv("LISTEN_FDS");
        if (!pid || !n || strtol(pid, NULL, 10) != (long)getpid() || strtol(n, NULL, 10) < 1)
                return -1;
        unsetenv("LISTEN_PID");
        unsetenv("LISTEN_FDS");
        unsetenv("LISTEN_FDNAMES");
        int type = 0;
        socklen_t len = sizeof type;
        if (getsockopt(3, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM)
                return -1;
        (void)fcntl(3, F_SETFD, FD_CLOEXEC);
        return 3;
}

/* Bind PATH with mode 0600; a stale socket (nobody listening) is replaced, nothing else. */
static int bind_socket(const char *path, acs_error *err)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct stat st;
        if (strlen(path) >= sizeof sa.sun_path)
                return acs_error_set(err, -ENAMETOOLONG, "usage", "--socket %s: the path is longer than %zu bytes",
                                     path, sizeof sa.sun_path - 1);
        strcpy(sa.sun_path, path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return acs_error_errno(err, -errno, "serve", "socket");
        if (lstat(path, &st) == 0) {
                if (!S_ISSOCK(st.st_mode)) {
                        close(fd);
                        return acs_error_set(err, -EEXIST, "usage", "--socket %s: exists and is not a socket", path);
                }
                if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
                        close(fd);
                        return acs_error_set(err, -EADDRINUSE, "usage",
                                             "--socket %s: a server already listens there", path);
                }
                close(fd);
                if (unlink(path) < 0)
                        return acs_error_errno(err, -errno, "usage", "--socket %s: cannot replace it", path);
                if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
                        return acs_error_errno(err, -errno, "serve", "socket");
        }
        mode_t old = umask(0177); /* the socket is created 0600: only its owner connects */
        int r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
        umask(old);
        if (r < 0 || chmod(path, 0600) < 0 || listen(fd, 64) < 0) {
                r = acs_error_errno(err, -errno, "usage", "--socket %s: cannot listen there", path);
                close(fd);
                return r;
        }
        return fd;
}

typedef struct conn_ctx {
        int listen_fd;
} conn_ctx;

/*
 * The master's pipe: one byte on it says "this process took a client for
 * good, start the next spare". A CLI's run is claimed so by SIGALRM when it
 * lasts: once another client waits after CLAIM_BUSY_MS, or after
 * CLAIM_ALONE_MS anyway (a client that says nothing too), so that nobody
 * waits behind a long run; a client that waits behind a quick run is
 * served sooner by this spare than by a new one, which first readies its
 * pool. The handler only writes the byte; the rest is done once the run
 * is over.
 */
#define CLAIM_TICK_MS 10
#define CLAIM_BUSY_MS 50
#define CLAIM_ALONE_MS 250
static int notify_fd = -1, accept_fd = -1;
static volatile sig_atomic_t claimed, ticks;

static void claim_timer(long ms)
{
        struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 };
        struct itimerval t = { .it_value = tv, .it_interval = tv };
        (void)setitimer(ITIMER_REAL, &t, NULL);
}

static void say_claimed(void)
{
        if (!claimed) {
                claimed = 1;
                (void)!write(notify_fd, "a", 1);
        }
}

static void on_alarm(int sig)
{
        (void)sig;
        int e = errno;
        long ms = (long)++ticks * CLAIM_TICK_MS;
        struct pollfd p = { .fd = accept_fd, .events = POLLIN };
        if (!claimed && ms >= CLAIM_BUSY_MS && (ms >= CLAIM_ALONE_MS || poll(&p, 1, 0) > 0)) {
                say_claimed();
                claim_timer(0);
        }
        errno = e;
}

/* acs_mcp_accept.wait: the pool is started; take one client. */
static int wait_client(void *ctx, int signal_fd)
{
        conn_ctx *c = ctx;
        for (;;) {
                struct pollfd p[2] = { { .fd = c->listen_fd, .events = POLLIN }, { .fd = signal_fd, .events = POLLIN } };
                if (poll(p, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                bool chld = false;
                if (p[1].revents) {
                        struct signalfd_siginfo si;
                        while (read(signal_fd, &si, sizeof si) == (ssize_t)sizeof si)
                                if (si.ssi_signo != SIGCHLD)
                                        return -EINTR;
                                else
                                        chld = true;
                }
                if (chld)
                        return 1; /* a pool worker ended: the caller replaces it */
                if (!p[0].revents)
                        continue;
                int fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
                if (fd < 0) {
                        if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
                                continue;
                        return -errno;
                }
                ticks = 0;
                claim_timer(CLAIM_TICK_MS);
                if (dup2(fd, STDIN_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0) {
                        int r = -errno;
                        close(fd);
                        return r;
                }
                close(fd);
                return 0;
        }
}

/* acs_mcp_accept.claim: this process is its client's; nothing more is accepted here. */
static void claim_client(void *ctx)
{
        conn_ctx *c = ctx;
        claim_timer(0);
        say_claimed();
        if (notify_fd >= 0)
                close(notify_fd);
        notify_fd = -1;
        if (c->listen_fd >= 0)
                close(c->listen_fd);
        c->listen_fd = accept_fd = -1;
}

/* acs_mcp_accept.release: a CLI's run is over; take the next client unless it was claimed meanwhile. */
static bool release_client(void *ctx)
{
        conn_ctx *c = ctx;
        claim_timer(0);
        if (claimed) {
                claim_client(c);
                return false;
        }
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        bool ok = null >= 0 && dup2(null, STDIN_FILENO) >= 0 && dup2(null, STDOUT_FILENO) >= 0;
        if (null >= 0)
                close(null);
        if (!ok)
                claim_client(c); /* the client's socket stays open: serve nobody else with it */
        return ok;
}

typedef struct conn_proc {
        pid_t pid;
        int notify_fd; /* read end; -1 once it accepted */
} conn_proc;

#define MAX_CONNS 256

static pid_t start_spare(const acs_options *o, int listen_fd, const sigset_t *oldmask, int *ret_notify)
{
        int nfd[2];
        if (pipe2(nfd, O_CLOEXEC) < 0)
                return -errno;
        pid_t master = getpid();
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
                int r = -errno;
                close(nfd[0]);
                close(nfd[1]);
                return r;
        }
        if (pid == 0) {
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != master)
                        _exit(1);
                sigprocmask(SIG_SETMASK, oldmask, NULL);
                close(nfd[0]);
                notify_fd = nfd[1];
                accept_fd = listen_fd;
                struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
                sigemptyset(&sa.sa_mask);
                sigaction(SIGALRM, &sa, NULL);
                conn_ctx c = { .listen_fd = listen_fd };
                acs_mcp_accept acc = { .wait = wait_client, .claim = claim_client, .release = release_client, .ctx = &c };
                _exit(acs_mcp_main_on(o, &acc));
        }
        close(nfd[1]);
        *ret_notify = nfd[0];
        return pid;
}

static void stop_all(conn_proc *cs, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (cs[i].pid > 0)
                        (void)kill(cs[i].pid, SIGTERM);
        for (size_t i = 0; i < n; i++) {
                if (cs[i].pid > 0)
                        while (waitpid(cs[i].pid, NULL, 0) < 0 && errno == EINTR)
                                ;
                if (cs[i].notify_fd >= 0)
                        close(cs[i].notify_fd);
        }
}

/* Returns 0, or 125 when a connection process could not start its server (a usage error). */
static int serve_loop(const acs_options *o, int lfd, int sfd, const sigset_t *oldmask)
{
        conn_proc cs[MAX_CONNS];
        size_t n = 0;
        int spare = -1; /* index of the process waiting to accept */
        bool stop = false;
        int status = 0;

        while (!stop) {
                if (spare < 0 && n < MAX_CONNS) {
                        int nfd = -1;
                        pid_t pid = start_spare(o, lfd, oldmask, &nfd);
                        if (pid > 0) {
                                cs[n] = (conn_proc){ .pid = pid, .notify_fd = nfd };
                                spare = (int)n++;
                        } else
                                acs_log(0, "serve: cannot start a connection process: %s", strerror(-pid));
                }
                struct pollfd p[2] = { { .fd = sfd, .events = POLLIN },
                                       { .fd = spare >= 0 ? cs[spare].notify_fd : -1, .events = POLLIN } };
                if (poll(p, 2, spare < 0 ? 1000 : -1) < 0 && errno != EINTR)
                        break;
                if (p[1].revents) {
                        char b;
                        bool accepted = read(cs[spare].notify_fd, &b, 1) == 1;
                        close(cs[spare].notify_fd);
                        cs[spare].notify_fd = -1;
                        if (accepted)
                                spare = -1; /* the next spare; one that died is reaped below */
                }
                struct signalfd_siginfo si;
                while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
                        if (si.ssi_signo != SIGCHLD) {
                                acs_log(2, "serve: signal %u, shutting down", si.ssi_signo);
                                stop = true;
                        }
                for (size_t i = 0; i < n;) {
                        int st;
                        if (waitpid(cs[i].pid, &st, WNOHANG) != cs[i].pid) {
                                i++;
                                continue;
                        }
                        if ((int)i == spare && WIFEXITED(st) && WEXITSTATUS(st) == 125) {
                                stop = true; /* it said why on stderr: the options are wrong */
                                status = 125;
                                spare = -1;
                        } else if ((int)i == spare) {
                                /* died before any client: do not spin on a server that cannot start */
                                acs_log(0, "serve: the connection process failed before accepting (status %d)", st);
                                nanosleep(&(struct timespec){ .tv_sec = 1 }, NULL);
                                spare = -1;
                        }
                        if (cs[i].notify_fd >= 0)
                                close(cs[i].notify_fd);
                        cs[i] = cs[--n];
                        if (spare == (int)n)
                                spare = (int)i;
                }
        }
        stop_all(cs, n);
        return status;
}

int acs_serve_main(const acs_options *o)
{
        acs_error err = { 0 };
        int lfd = o->socket ? bind_socket(o->socket, &err) : systemd_socket();
        if (lfd < 0) {
                if (!o->socket)
                        acs_error_set(&err, -EINVAL, "usage", "serve: give --socket PATH (or start it from a systemd socket unit)");
                fprintf(stderr, "acs-launch serve: %s\n", err.msg);
                return 125;
        }
        (void)fcntl(lfd, F_SETFL, O_NONBLOCK);
        sigset_t mask, oldmask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, &oldmask);
        int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
        if (sfd < 0) {
                fprintf(stderr, "acs-launch serve: signalfd: %s\n", strerror(errno));
                close(lfd);
                return 125;
        }
        signal(SIGPIPE, SIG_IGN);
        /* the CLI's sessions outlive its connections: a keeper of the server's holds them (cli-session.h) */
        int kfd = -1;
        pid_t keeper = acs_cli_sessions_start(o, &oldmask, &kfd);
        if (keeper < 0)
                acs_log(0, "serve: no sessions for the CLI: %s", strerror((int)-keeper));
        acs_serve_cli_set_keeper(kfd);
        acs_log(2, "serve: listening on %s", o->socket ? o->socket : "the socket systemd passed");
        int status = serve_loop(o, lfd, sfd, &oldmask);
        if (keeper > 0) {
                (void)kill(keeper, SIGTERM);
                while (waitpid(keeper, NULL, 0) < 0 && errno == EINTR)
                        ;
        }
        if (kfd >= 0)
                close(kfd);
        if (o->socket)
                unlink(o->socket);
        close(lfd);
        close(sfd);
        sigprocmask(SIG_SETMASK, &oldmask, NULL);
        return status;
}
