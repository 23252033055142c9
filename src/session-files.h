/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files in and out of a session (issue 14, item 4): the write_file and
 * read_file tools. The file I/O is done by the session's own interpreter,
 * inside its sandbox (its mount namespace, uid, seccomp and Landlock), with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV) below
 * /workspace: the kernel, not a check of ours on a host path, keeps a path
 * in the workspace. Only regular files are read or written (a fifo is
 * opened O_NONBLOCK and refused), at most ACS_SESSION_FILE_MAX bytes.
 *
 * On the scan socket, between calls, instead of a call's policy length:
 *   u32 op (ACS_SESSION_OP_*), u32 path length, the path (relative to
 *   /workspace), and for a write u32 data length and the data;
 * answered by one line "F N\n": N >= 0 the bytes written, or the size of
 * the file, whose N bytes follow (read); N < 0 a -errno.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest file the tools move (decoded bytes); its base64 fits the HTTP front end's 4 MiB body. */
#define ACS_SESSION_FILE_MAX (2u << 20)
#define ACS_SESSION_PATH_MAX 4095u

#define ACS_SESSION_OP_WRITE 0xfffffff1u
#define ACS_SESSION_OP_READ 0xfffffff2u
/*
 * execute_command in a session: u32 command length, the command, u32 cwd
 * length, the cwd (0: the interpreter's, /workspace), u32 count of
 * "NAME=VALUE" entries added to the environment, each as u32 length and
 * bytes. The interpreter runs /bin/sh -c COMMAND as its child, in its
 * sandbox, and answers "D STATUS\n" like a call (128 + N for signal N).
 */
#define ACS_SESSION_OP_COMMAND 0xfffffff3u
#define ACS_SESSION_CMD_MAX (4u << 20)

/*
 * The path a client gave, as the in-sandbox side takes it: relative to
 * /workspace ("/workspace/x" and "x" are the same file). NULL when it is
 * empty, too long, has a NUL byte, ends in '/' or names /workspace itself,
 * or is absolute outside /workspace. Pure; points into path. Escapes by
 * ".." or symlinks are the kernel's to refuse (RESOLVE_BENEATH).
 */
const char *acs_session_file_rel(const char *path, size_t len);

/* Is s (n bytes) valid UTF-8 (no overlong forms, surrogates or code points above U+10FFFF)? Pure. */
bool acs_session_text_ok(const char *s, size_t n);

/* In the sandbox (acs-scan-ext.so): serve one op read from fd; < 0 when fd failed (the launcher is gone). */
int acs_session_file_serve(int fd, uint32_t op);
/* In the sandbox: read a command request from fd, run it, wait: its status (0-255), or < 0 (fd failed). */
int acs_session_command_run(int fd);
