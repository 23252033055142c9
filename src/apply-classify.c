/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acs_protect_classify: which changes the write-back must leave alone. Pure:
 * the host is known only through the probe callback.
 *
 * The changed paths (and the workspace-relative targets of changed
 * symlinks) go into a trie of their components, so that everything is
 * decided once per directory on the way, not once per path and parent: the
 * cost stays linear in the total length of the paths however deep the tree
 * the program left behind. Names come from the sandbox, so the children's
 * hash table uses a random seed.
 */
#include <string.h>

#include "apply-policy.h"

#define NO_NODE UINT32_MAX

typedef struct node {
        uint32_t parent, child, sibling, depth;
        size_t fold_off, fold_len; /* folded name in trie.fold (NUL-terminated) */
        const char *raw;           /* a path that reaches this node ... */
        size_t raw_len;            /* ... and the bytes of it up to this node */
        size_t name_off;           /* where this node's name starts in raw */
        unsigned markers;          /* ACS_MARK_* of the entries below it */
        bool host_dir;
        bool holds;                /* a protected deletion lies below */
        const char *guard;         /* acs-launch's configuration: the configured path */
        acs_prot prot;
} node;

typedef struct trie {
        node *v;
        size_t n, cap;
        uint32_t *tab; /* node id + 1, 0 = empty */
        size_t tab_size;
        char *fold;
        size_t fold_len, fold_cap;
        uint64_t seed;
} trie;

static uint64_t mix(uint64_t h)
{
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        h *= 0xc4ceb9fe1a85ec53ULL;
        return h ^ (h >> 33);
}

static uint64_t hash_name(uint64_t seed, uint32_t parent, const char *s, size_t n)
{
        uint64_t h = mix(seed ^ parent);

        for (size_t i = 0; i < n; i++)
                h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
        return mix(h ^ n);
}

static const char *name_of(const trie *t, const node *x, size_t *len)
{
        *len = x->raw_len - x->name_off;
        return x->raw + x->name_off;
}

static int grow_table(trie *t)
{
        size_t size = t->tab_size ? t->tab_size * 2 : 1024;
        uint32_t *tab = calloc(size, sizeof *tab);

        if (!tab)
                return -ENOMEM;
        for (size_t id = 1; id < t->n; id++) {
                size_t len;
                const char *nm = name_of(t, &t->v[id], &len);
                size_t h = hash_name(t->seed, t->v[id].parent, nm, len) & (size - 1);

                while (tab[h])
                        h = (h + 1) & (size - 1);
                tab[h] = (uint32_t)id + 1;
        }
        free(t->tab);
        t->tab = tab;
        t->tab_size = size;
        return 0;
}

static int add_node(trie *t, uint32_t parent, const char *raw, size_t name_off, size_t raw_len)
{
        if (t->n == t->cap) {
                size_t nc = t->cap ? t->cap * 2 : 256;
                node *nv = nc < UINT32_MAX ? realloc(t->v, nc * sizeof *nv) : NULL;

                if (!nv)
                        return -ENOMEM;
                t->v = nv, t->cap = nc;
        }
        size_t nlen = raw_len - name_off;
        if (t->fold_len + nlen + 1 > t->fold_cap) {
                /* from what is needed: the root's empty name came first, and
                 * (cap + nlen) * 2 gave it 0 bytes for its 1 (ASan, test-apply-policy) */
                size_t nc = (t->fold_len + nlen + 1) * 2;
                char *nf = realloc(t->fold, nc);

                if (!nf)
                        return -ENOMEM;
                t->fold = nf, t->fold_cap = nc;
        }
        node *x = &t->v[t->n];
        *x = (node){ .parent = parent, .child = NO_NODE, .sibling = NO_NODE, .raw = raw,
                     .raw_len = raw_len, .name_off = name_off, .fold_off = t->fold_len };
        x->fold_len = acs_fold_name(raw + name_off, nlen, t->fold + t->fold_len);
        t->fold[t->fold_len + x->fold_len] = 0; /* names are C strings */
        t->fold_len += x->fold_len + 1;
        if (parent != NO_NODE) {
                x->depth = t->v[parent].depth + 1;
                x->sibling = t->v[parent].child;
                t->v[parent].child = (uint32_t)t->n;
        }
        return (int)t->n++;
}

/* The child of parent named raw[name_off, raw_len), created if new. */
static int child(trie *t, uint32_t parent, const char *raw, size_t name_off, size_t raw_len)
{
        size_t nlen = raw_len - name_off, h;
        int id;

        if ((t->n + 1) * 2 > t->tab_size && grow_table(t) < 0)
                return -ENOMEM;
        h = hash_name(t->seed, parent, raw + name_off, nlen) & (t->tab_size - 1);
        for (; t->tab[h]; h = (h + 1) & (t->tab_size - 1)) {
                const node *x = &t->v[t->tab[h] - 1];
                size_t len;
                const char *nm = name_of(t, x, &len);

                if (x->parent == parent && len == nlen && memcmp(nm, raw + name_off, nlen) == 0)
                        return (int)(t->tab[h] - 1);
        }
        if ((id = add_node(t, parent, raw, name_off, raw_len)) >= 0)
                t->tab[h] = (uint32_t)id + 1;
        return id;
}

/* Insert path; its entries count as git-directory markers when marks. */
static int insert(trie *t, const char *path, bool marks)
{
        uint32_t cur = 0;

        for (size_t off = 0;;) {
                size_t c = strcspn(path + off, "/");
                int id = child(t, cur, path, off, off + c);

                if (id < 0)
                        return id;
                if (marks)
                        t->v[cur].markers |= acs_repo_marker(path + off, c);
                cur = (uint32_t)id;
                if (!path[off + c])
                        return id;
                off += c + 1;
        }
}

/* Mark the nodes below id that follow the guard's missing components. */
static void mark_guard(trie *t, uint32_t id, const acs_guard *g, size_t j)
{
        if (!g->tail || !g->tail[j]) {
                if (!t->v[id].guard)
                        t->v[id].guard = g->what;
                return;
        }
        size_t tl = strlen(g->tail[j]);
        for (uint32_t c = t->v[id].child; c != NO_NODE; c = t->v[c].sibling)
                if (t->v[c].fold_len == tl && memcmp(t->fold + t->v[c].fold_off, g->tail[j], tl) == 0)
                        mark_guard(t, c, g, j + 1);
}

/* What the host holds on the way; guards found by identity. */
static int probe_host(trie *t, const acs_protect_in *in)
{
        for (size_t id = 0; id < t->n && in->probe; id++) {
                node *x = &t->v[id];
                acs_host_dir h = {};
                int r;

                if (id && !t->v[x->parent].host_dir)
                        continue;
                if ((r = in->probe(in->probe_data, x->raw, x->raw_len, x->markers, &h)) < 0)
                        return r;
                if (!h.exists)
                        continue;
                x->host_dir = true;
                x->markers |= h.markers;
                for (size_t g = 0; in->guards && g < in->guards->n; g++) {
                        const acs_guard *gd = &in->guards->v[g];

                        if (gd->dev == h.dev && gd->ino == h.ino)
                                mark_guard(t, (uint32_t)id, gd, 0);
                }
        }
        return 0;
}

/* The folded path of node id ("a/b/c"), for patterns with "**" of their own. */
static char *node_path(const trie *t, uint32_t id)
{
        size_t len = 0;
        char *s, *end;

        for (uint32_t y = id; y; y = t->v[y].parent)
                len += t->v[y].fold_len + 1;
        if (!(s = malloc(len + 1)))
                return NULL;
        end = s + (len ? len - 1 : 0);
        *end = 0;
        for (uint32_t y = id; y; y = t->v[y].parent) {
                end -= t->v[y].fold_len;
                memcpy(end, t->fold + t->v[y].fold_off, t->v[y].fold_len);
                if (end > s)
                        *--end = '/';
        }
        return s;
}

/* The profile pattern naming node id itself (its parents were checked before). */
static const char *node_glob(const trie *t, uint32_t id, const acs_globset *g, int *err)
{
        for (size_t i = 0; g && i < g->n; i++) {
                const acs_globpat *p = &g->v[i];
                uint32_t y = id;
                bool hit = true;

                if (p->deep) {
                        _cleanup_free_ char *s = node_path(t, id);

                        if (!s)
                                return *err = -ENOMEM, NULL;
                        if (acs_glob_match(p->full, s))
                                return p->orig;
                        continue;
                }
                if (p->anchored ? t->v[id].depth != p->m : t->v[id].depth < p->m)
                        continue;
                for (size_t j = p->m; j-- > 0 && hit; y = t->v[y].parent)
                        hit = acs_glob_match(p->comps[j], t->fold + t->v[y].fold_off);
                if (hit)
                        return p->orig;
        }
        return NULL;
}

/* Each node's protection, parents first (ids grow away from the root). */
static int protect_nodes(trie *t, const acs_protect_in *in)
{
        for (size_t id = 0; id < t->n; id++) {
                node *x = &t->v[id];
                const node *up = id ? &t->v[x->parent] : NULL;
                const char *hit;
                int err = 0;

                if (!id && in->root.kind)
                        x->prot = in->root;
                else if (up && up->prot.kind)
                        x->prot = up->prot;
                else if (x->guard)
                        x->prot = (acs_prot){ ACS_PROT_CONFIG, x->guard };
                else if (id && (hit = acs_protect_builtin_for(up == t->v ? NULL : t->fold + up->fold_off,
                                                              up->fold_len, t->fold + x->fold_off,
                                                              x->fold_len)))
                        x->prot = (acs_prot){ ACS_PROT_BUILTIN, hit };
                else if (id && (hit = node_glob(t, (uint32_t)id, in->globs, &err)))
                        x->prot = (acs_prot){ ACS_PROT_GLOB, hit };
                else if (acs_repo_shaped(x->markers))
                        x->prot = (acs_prot){ ACS_PROT_REPO, NULL };
                if (err < 0)
                        return err;
        }
        return 0;
}

typedef struct list {
        const acs_change *v;
        size_t n;
        acs_prot **out;
        bool deleted;
} list;

static void trie_done(trie *t)
{
        free(t->v);
        free(t->tab);
        free(t->fold);
}

/* Symlink targets resolved inside the workspace, parallel to the list (NULL: none). */
static int link_targets(const list *l, char ***ret)
{
        char **v = calloc(l->n + 1, sizeof *v);

        if (!v)
                return -ENOMEM;
        for (size_t i = 0; !l->deleted && i < l->n; i++) {
                const char *why;

                if (l->v[i].type == ACS_FT_SYMLINK &&
                    acs_symlink_resolve(l->v[i].path, l->v[i].target, &v[i], &why) < 0) {
                        for (size_t k = 0; k < l->n; k++)
                                free(v[k]);
                        free(v);
                        return -ENOMEM;
                }
        }
        *ret = v;
        return 0;
}

static void free_targets(char **v, size_t n)
{
        for (size_t i = 0; v && i < n; i++)
                free(v[i]);
        free(v);
}

/* Protected deletions make the removed directories that hold them protected. */
static void mark_holds(trie *t, list *ls, uint32_t *ids[3])
{
        for (size_t i = 0; i < ls[2].n; i++)
                if ((*ls[2].out)[i].kind)
                        for (uint32_t y = t->v[ids[2][i]].parent; y && !t->v[y].holds; y = t->v[y].parent)
                                t->v[y].holds = true;
        for (size_t l = 1; l < 3; l++)
                for (size_t i = 0; i < ls[l].n; i++) {
                        const acs_change *ch = &ls[l].v[i];
                        acs_prot *p = &(*ls[l].out)[i];

                        if (!p->kind && ch->old_type == ACS_FT_DIR && ch->type != ACS_FT_DIR &&
                            t->v[ids[l][i]].holds)
                                *p = (acs_prot){ ACS_PROT_HOLDS, NULL };
                }
}

static int classify_lists(trie *t, const acs_protect_in *in, list *ls, uint32_t *ids[3],
                          char **targets[3])
{
        int r;

        for (size_t l = 0; l < 3; l++)
                for (size_t i = 0; i < ls[l].n; i++) {
                        if ((r = insert(t, ls[l].v[i].path, !ls[l].deleted)) < 0)
                                return r;
                        ids[l][i] = (uint32_t)r;
                }
        /* targets after the paths: they never add markers, only get looked at */
        uint32_t *tids[3] = {};
        for (size_t l = 0; l < 2; l++) {
                if (!(tids[l] = calloc(ls[l].n + 1, sizeof *tids[l])))
                        return -ENOMEM;
                for (size_t i = 0; i < ls[l].n; i++) {
                        tids[l][i] = NO_NODE;
                        if (!targets[l][i])
                                continue;
                        if ((r = *targets[l][i] ? insert(t, targets[l][i], false) : 0) < 0)
                                goto out;
                        tids[l][i] = (uint32_t)r;
                }
        }
        if ((r = probe_host(t, in)) < 0 || (r = protect_nodes(t, in)) < 0)
                goto out;
        for (size_t l = 0; l < 3; l++)
                for (size_t i = 0; i < ls[l].n; i++) {
                        acs_prot *p = &(*ls[l].out)[i];

                        *p = t->v[ids[l][i]].prot;
                        if (!p->kind && l < 2 && tids[l][i] != NO_NODE && t->v[tids[l][i]].prot.kind) {
                                const acs_prot *tp = &t->v[tids[l][i]].prot;

                                *p = (acs_prot){ ACS_PROT_LINK, tp->detail ? tp->detail : "a git directory" };
                        }
                }
        mark_holds(t, ls, ids);
        r = 0;
out:
        free(tids[0]);
        free(tids[1]);
        return r;
}

int acs_protect_classify(const acs_changes *c, const acs_protect_in *in, acs_protect_out *ret)
{
        acs_protect_out o = {};
        list ls[3] = { { c->added, c->n_added, &o.added, false },
                       { c->modified, c->n_modified, &o.modified, false },
                       { c->deleted, c->n_deleted, &o.deleted, true } };
        uint32_t *ids[3] = {};
        char **targets[3] = {};
        trie t = { .seed = in->seed };
        int r = -ENOMEM;

        for (size_t l = 0; l < 3; l++)
                if (!(*ls[l].out = calloc(ls[l].n + 1, sizeof(acs_prot))) ||
                    !(ids[l] = calloc(ls[l].n + 1, sizeof *ids[l])) || link_targets(&ls[l], &targets[l]) < 0)
                        goto out;
        if (add_node(&t, NO_NODE, "", 0, 0) < 0)
                goto out;
        r = classify_lists(&t, in, ls, ids, targets);
out:
        for (size_t l = 0; l < 3; l++) {
                free(ids[l]);
                free_targets(targets[l], ls[l].n);
        }
        trie_done(&t);
        if (r < 0) {
                acs_protect_out_done(&o);
                return r;
        }
        *ret = o;
        return 0;
}

void acs_protect_out_done(acs_protect_out *o)
{
        if (!o)
                return;
        free(o->added);
        free(o->modified);
        free(o->deleted);
        *o = (acs_protect_out){};
}
