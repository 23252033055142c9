#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Classification of a real overlay upper layer (built with unshare, userxattr,
# as the engine mounts it), and for every case: git apply of the patch and
# acs_apply_changes onto copies of the original workspace reproduce the
# merged view; the original stays untouched.
. "$ACS_SRCDIR/tests/lib.sh"
. "$ACS_SRCDIR/tests/integration/diff-lib.sh"

if ! overlay_works; then
        skip "no unprivileged overlayfs with userxattr here (or diff-tool not built)"
        tap_plan
        exit 0
fi

# every case ends with the same three checks
finish() {
        git_apply_matches "$1"
        acs_apply_matches "$1"
        host_untouched "$1"
}

# --- add ---------------------------------------------------------------
case_begin add
echo old >"$C/lower/keep.txt"
in_overlay 'echo new > added.txt; mkdir -p newdir/sub; echo x > newdir/sub/f; mkdir emptydir; chmod 700 emptydir'
collect
is "$(field added added.txt type)" file "add: file reported as added"
is "$(field added added.txt sha256)" "$(printf 'new\n' | sha256sum | cut -d' ' -f1)" "add: sha256 of the new file"
is "$(field added added.txt size)" 4 "add: size"
is "$(field added newdir type)" dir "add: created directory reported"
is "$(field added newdir/sub/f type)" file "add: nested file reported"
is "$(field added emptydir mode)" 0700 "add: empty directory with its mode"
is "$(field modified keep.txt type)" absent "add: untouched lower file not reported"
contains "$(cat "$C/changes.patch")" "new file mode 100644" "add: patch has new file mode"
finish add

# --- modify content and mode, copy-up without change ---------------------
case_begin modify
printf 'line1\nline2\n' >"$C/lower/a.txt"
echo 'echo hi' >"$C/lower/run.sh"
echo same >"$C/lower/same.txt"
echo secret >"$C/lower/private.txt"
echo touched >"$C/lower/touched.txt"
mkdir "$C/lower/d"
in_overlay 'echo line3 >> a.txt; chmod 755 run.sh; echo same > same.txt; chmod 600 private.txt; touch touched.txt; chmod 700 d'
collect
is "$(field modified a.txt old_sha256)" "$(printf 'line1\nline2\n' | sha256sum | cut -d' ' -f1)" "modify: old_sha256"
is "$(field modified a.txt sha256)" "$(printf 'line1\nline2\nline3\n' | sha256sum | cut -d' ' -f1)" "modify: new sha256"
is "$(field modified run.sh mode)/$(field modified run.sh old_mode)" "0755/0644" "modify: mode change reported"
is "$(field modified same.txt type)" absent "modify: copy-up with equal content is not a change"
is "$(field modified touched.txt type)" absent "modify: touch (copy-up, new mtime) is not a change"
is "$(field modified private.txt mode)" 0600 "modify: non-exec mode change reported"
is "$(field modified d mode)" 0700 "modify: directory mode change reported"
contains "$(cat "$C/changes.patch")" "old mode 100644
new mode 100755" "modify: patch has old/new mode"
finish modify

# --- delete, rename, rm -rf of a lower tree ------------------------------
case_begin delete
echo a >"$C/lower/gone.txt"
echo r >"$C/lower/from.txt"
mkdir -p "$C/lower/tree/sub/deeper" "$C/lower/mvdir"
echo 1 >"$C/lower/tree/one"
echo 2 >"$C/lower/tree/sub/two"
echo 3 >"$C/lower/tree/sub/deeper/three"
echo m >"$C/lower/mvdir/m"
in_overlay 'rm gone.txt; mv from.txt to.txt; rm -rf tree; mv mvdir mvdir2'
collect
is "$(field deleted gone.txt type)" file "delete: whiteout reported as deleted file"
is "$(field deleted gone.txt old_sha256)" "$(echo a | sha256sum | cut -d' ' -f1)" "delete: old hash kept"
is "$(field deleted from.txt type)/$(field added to.txt type)" "file/file" "rename: deleted + added"
is "$(field deleted tree type)" dir "rm -rf: the directory is deleted"
is "$(field deleted tree/sub/deeper/three type)" file "rm -rf: nested files listed as deleted"
is "$(count deleted)" 10 "delete: every removed entry listed once"
is "$(field added mvdir2/m type)" file "rename dir: new tree added"
finish delete

# --- recreate after delete (opaque directory) -----------------------------
case_begin opaque
mkdir -p "$C/lower/d/sub"
echo x >"$C/lower/d/x"
echo y >"$C/lower/d/y"
echo z >"$C/lower/d/sub/z"
echo keep >"$C/lower/d/keep"
in_overlay 'rm -rf d; mkdir d; echo new-x > d/x; echo keep > d/keep'
collect
is "$(field modified d/x old_sha256)" "$(echo x | sha256sum | cut -d' ' -f1)" "opaque: recreated file compared with the hidden lower one"
is "$(field modified d/keep type)" absent "opaque: identical recreated file is not a change"
is "$(field deleted d/y type)" file "opaque: hidden lower file is a deletion"
is "$(field deleted d/sub/z type)" file "opaque: hidden lower subtree listed recursively"
is "$(field deleted d type)" absent "opaque: the directory itself stays"
finish opaque

# --- type changes --------------------------------------------------------
case_begin types
echo f >"$C/lower/f2d"
mkdir "$C/lower/d2f"
echo inner >"$C/lower/d2f/inner"
echo f >"$C/lower/f2l"
ln -s f2l "$C/lower/l2f"
in_overlay 'rm f2d; mkdir f2d; echo c > f2d/child; rm -rf d2f; echo now-a-file > d2f; rm f2l; ln -s target f2l; rm l2f; echo real > l2f'
collect
is "$(field modified f2d type)/$(field modified f2d old_type)" "dir/file" "type: file -> dir is modified with old_type"
is "$(field added f2d/child type)" file "type: new directory's content added"
is "$(field modified d2f type)/$(field modified d2f old_type)" "file/dir" "type: dir -> file"
is "$(field deleted d2f/inner type)" file "type: old directory's content deleted"
is "$(field modified f2l target)" target "type: file -> symlink with target"
is "$(field modified l2f old_target)" f2l "type: symlink -> file with old target"
contains "$("$DIFF_TOOL" short "$C/upper" "$C/lower")" "T  f2d/" "type: short status T"
finish types

# --- symlinks (never followed), FIFO -------------------------------------
case_begin links
ln -s old "$C/lower/retarget"
in_overlay 'ln -s /etc/passwd pw; ln -s /etc etcdir; ln -sfn new retarget; mkfifo pipe'
collect
is "$(field added pw type)/$(field added pw target)" "symlink//etc/passwd" "symlink into /etc reported with its target"
is "$(field added pw sha256)" null "symlink into /etc: target not read"
is "$(field added pw size)" 11 "symlink size is the target length"
is "$(field modified retarget target)/$(field modified retarget old_target)" "new/old" "symlink retargeted"
is "$(field added pipe type)" fifo "FIFO reported as such"
contains "$(cat "$C/changes.json")" '"patch_skipped":["pipe"]' "FIFO listed as not expressible in the patch"
contains "$(cat "$C/changes.patch")" "new file mode 120000" "patch: symlink as mode 120000"
finish links
contains "$(cat "$C/apply.json")" '"status":"skipped"' "apply: FIFO skipped, not created"
check "apply: no FIFO on the host" test ! -e "$C/host/pipe"
is "$(readlink "$C/host/retarget")" new "apply: symlink written as a symlink"
check "apply: a symlink leading out of the workspace is not written" test ! -e "$C/host/pw" -a ! -L "$C/host/pw"

# --- odd names -----------------------------------------------------------
case_begin names
long=$(printf '%0255d' 0)
printf 'old\n' >"$C/lower/$(printf 'bad\377name')"
in_overlay "printf 'x\n' > 'new
line'; printf 'y\n' > \"\$(printf 'bad\\377')\"; printf 'z\n' > $long; printf 'w\n' > \"\$(printf 'bad\\377name')\"; printf q > 'sp ace\"quote\\\\'; : > 'empty with space'; echo u > \"\$(printf 'caf\\303\\251')\"; echo b > 'back\\slash'"
collect
is "$(field added 'new\nline' type)" file "odd names: newline kept"
is "$(field added 'bad\xff' path_escaped)" true "odd names: non-UTF-8 escaped and flagged"
is "$(field modified 'bad\xffname' type)" file "odd names: non-UTF-8 modified file"
is "$(field added "$long" size)" 2 "odd names: 255-byte name"
is "$(count added)" 7 "odd names: none dropped"
is "$(field added "$(printf 'caf\303\251')" path_escaped)" null "odd names: valid UTF-8 not escaped"
finish names

# --- empty files, no final newline, binary -------------------------------
case_begin content
: >"$C/lower/was-empty"
echo content >"$C/lower/to-empty"
printf 'no newline' >"$C/lower/nonl"
printf 'a\0b\0c' >"$C/lower/bin"
: >"$C/lower/empty-gone"
in_overlay 'echo now > was-empty; : > to-empty; : > new-empty; printf "still none" > nonl; printf "added, none" > nonl2; printf "a\0B\0c\0d" > bin; head -c 5000 /dev/urandom > newbin; rm empty-gone'
collect
is "$(field added new-empty size)" 0 "content: empty new file"
is "$(field added new-empty sha256)" e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 "content: sha256 of empty"
contains "$(cat "$C/changes.patch")" '\ No newline at end of file' "content: no final newline marked"
contains "$(cat "$C/changes.patch")" 'GIT binary patch' "content: binary as GIT binary patch"
is "$(field deleted empty-gone type)" file "content: empty file deleted"
finish content

# --- text edits in several hunks (udiff.c), git apply checks each ----------
case_begin hunks
seq 1 400 >"$C/lower/long.txt"
seq 1 50 | sed 's/$/\r/' >"$C/lower/crlf.txt"
printf 'a\nb\nc' >"$C/lower/grows"
seq 1 3000 >"$C/lower/rewritten"
in_overlay 'sed -i -e "5d" -e "100s/.*/changed/" -e "103a inserted" -e "399,400d" long.txt; sed -i "20s/.*/twenty\r/" crlf.txt; printf "a\nb\nc\nd\n" > grows; seq 3000 -1 1 > rewritten'
collect
patch=$(cat "$C/changes.patch")
contains "$patch" "@@ -2,7 +2,6 @@" "hunks: a deletion near the top, in its own hunk"
contains "$patch" "@@ -97,10 +96,11 @@" "hunks: two changes 3 lines apart share a hunk"
contains "$patch" "@@ -396,5 +396,3 @@" "hunks: the last lines deleted"
finish hunks

# --- limits ----------------------------------------------------------------
case_begin limits
in_overlay 'for i in 1 2 3 4 5; do echo $i > f$i; done'
collect --max-entries 3
is "$(count added)" 3 "max_entries bounds the list"
contains "$(cat "$C/changes.json")" '"truncated":true' "max_entries sets truncated"

tap_plan
