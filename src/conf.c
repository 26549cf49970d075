/*
 * The configuration parser (see conf.h): INI text and environment entries
 * into a list of typed, range-checked settings with their origin, and the
 * precedence lookup over them.  No global state; every diagnostic is kept
 * in the object for the caller to print.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "conf.h"

struct conf_entry {
	size_t e_key;
	enum rpcrdma_conf_layer e_layer;	/* MAIN, CONFD or ENV */
	unsigned int e_section;			/* 0, CS_CLIENT, CS_SERVER, CS_DEVICE */
	char *e_device;
	uint64_t e_val;
	char *e_str;
	const char *e_file;
	unsigned int e_line;
};

struct conf_diag {
	char *d_text;
	bool d_error;
};

struct rpcrdma_conf {
	const struct rpcrdma_conf_key *c_keys;
	size_t c_nkeys;
	struct conf_entry *c_ent;
	size_t c_nent, c_capent;
	struct conf_diag *c_diag;
	size_t c_ndiag, c_capdiag;
	unsigned int c_errors;
	char **c_names;			/* file and variable names entries point to */
	size_t c_nnames;
};

struct rpcrdma_conf *rpcrdma_conf_new(const struct rpcrdma_conf_key *keys,
				      size_t nkeys)
{
	struct rpcrdma_conf *c = calloc(1, sizeof(*c));

	if (c) {
		c->c_keys = keys;
		c->c_nkeys = nkeys;
	}
	return c;
}

void rpcrdma_conf_free(struct rpcrdma_conf *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->c_nent; i++) {
		free(c->c_ent[i].e_device);
		free(c->c_ent[i].e_str);
	}
	for (i = 0; i < c->c_ndiag; i++)
		free(c->c_diag[i].d_text);
	for (i = 0; i < c->c_nnames; i++)
		free(c->c_names[i]);
	free(c->c_ent);
	free(c->c_diag);
	free(c->c_names);
	free(c);
}

/* Out of memory loses the diagnostic but still counts an error. */
static void diag(struct rpcrdma_conf *c, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void diag(struct rpcrdma_conf *c, bool error, const char *fmt, ...)
{
	va_list ap;
	char *text;

	if (error)
		c->c_errors++;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text)
		return;
	if (c->c_ndiag == c->c_capdiag) {
		size_t n = c->c_capdiag ? 2 * c->c_capdiag : 8;
		struct conf_diag *d = realloc(c->c_diag, n * sizeof(*d));

		if (!d) {
			free(text);
			return;
		}
		c->c_diag = d;
		c->c_capdiag = n;
	}
	c->c_diag[c->c_ndiag].d_text = text;
	c->c_diag[c->c_ndiag++].d_error = error;
}

static const char *keep_name(struct rpcrdma_conf *c, const char *name)
{
	char **n = realloc(c->c_names, (c->c_nnames + 1) * sizeof(*n));
	char *s = strdup(name);

	if (!n || !s) {
		if (n)
			c->c_names = n;
		free(s);
		return NULL;
	}
	c->c_names = n;
	n[c->c_nnames++] = s;
	return s;
}

static int add_entry(struct rpcrdma_conf *c, const struct conf_entry *e,
		     const char *device, const char *str)
{
	struct conf_entry *n;

	if (c->c_nent == c->c_capent) {
		size_t cap = c->c_capent ? 2 * c->c_capent : 16;

		n = realloc(c->c_ent, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->c_ent = n;
		c->c_capent = cap;
	}
	n = &c->c_ent[c->c_nent];
	*n = *e;
	n->e_device = device ? strdup(device) : NULL;
	n->e_str = str ? strdup(str) : NULL;
	if ((device && !n->e_device) || (str && !n->e_str)) {
		free(n->e_device);
		free(n->e_str);
		return -ENOMEM;
	}
	c->c_nent++;
	return 0;
}

/* ---- keys ------------------------------------------------------------ */

/* Key names compare case-insensitively, '-' and '_' alike (nfs.conf style). */
static bool name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		int x = *a == '-' ? '_' : tolower((unsigned char)*a);
		int y = *b == '-' ? '_' : tolower((unsigned char)*b);

		if (x != y)
			return false;
	}
	return !*a && !*b;
}

int rpcrdma_conf_key_index(const struct rpcrdma_conf *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->c_nkeys; i++)
		if (name_eq(c->c_keys[i].ck_name, name))
			return (int)i;
	return -1;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, up;
	size_t row[64];

	if (la >= 64 || lb >= 64)
		return 64;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			cur = prev + (tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]));
			if (up + 1 < cur)
				cur = up + 1;
			if (row[j - 1] + 1 < cur)
				cur = row[j - 1] + 1;
			row[j] = cur;
			prev = up;
		}
	}
	return row[lb];
}

/* The closest name, if it is close enough to be a likely typo. */
static const char *closest(const char *const *names, size_t n, size_t stride,
			   const char *name)
{
	size_t i, d, best = 64, limit = strlen(name) / 3;
	const char *pick = NULL;

	if (limit < 2)
		limit = 2;
	for (i = 0; i < n; i++) {
		const char *cand = *(const char *const *)((const char *)names + i * stride);

		d = edit_distance(cand, name);
		if (!strncasecmp(cand, name, strlen(name)) && strlen(name) >= 4)
			d = 1;	/* a prefix: "max_req" */
		if (d < best) {
			best = d;
			pick = cand;
		}
	}
	return best <= limit ? pick : NULL;
}

const char *rpcrdma_conf_suggest(const struct rpcrdma_conf_key *keys,
				 size_t nkeys, const char *name)
{
	return closest(&keys[0].ck_name, nkeys, sizeof(keys[0]), name);
}

/* ---- files ----------------------------------------------------------- */

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A value: "quoted" as is, else up to a '#' or ';' after whitespace. */
static int value_of(char *v, char **out)
{
	char *p;

	v = trim(v);
	if (*v == '"') {
		p = strchr(v + 1, '"');
		if (!p)
			return -EINVAL;
		*p++ = '\0';
		p = trim(p);
		if (*p && *p != '#' && *p != ';')
			return -EINVAL;
		*out = v + 1;
		return 0;
	}
	for (p = v; *p; p++)
		if ((*p == '#' || *p == ';') && (p == v || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			break;
		}
	*out = trim(v);
	return 0;
}

struct parse_state {
	const char *pst_name;		/* kept file name */
	unsigned int pst_line;
	enum rpcrdma_conf_layer pst_layer;
	unsigned int pst_section;	/* 0 global, RPCRDMA_CS_*, ~0u: ignored */
	char pst_device[64];
};

static const char *section_name(unsigned int s)
{
	return s == RPCRDMA_CS_CLIENT ? "client" : s == RPCRDMA_CS_SERVER ?
	       "server" : s == RPCRDMA_CS_DEVICE ? "device" : "global";
}

static void parse_section(struct rpcrdma_conf *c, struct parse_state *ps,
			  char *s)
{
	static const char *const names[] = { "global", "client", "server", "device" };
	const char *near;
	char *word = trim(s), *arg;

	arg = word + strcspn(word, " \t");
	if (*arg)
		*arg++ = '\0';
	arg = trim(arg);
	if (!strcasecmp(word, "device")) {
		size_t n = strlen(arg);

		if (n >= 2 && arg[0] == '"' && arg[n - 1] == '"') {
			arg[n - 1] = '\0';
			arg++;
		}
		if (!*arg || strcspn(arg, " \t\"") != strlen(arg) ||
		    strlen(arg) >= sizeof(ps->pst_device)) {
			diag(c, true, "%s:%u: [device NAME] needs one device name, "
			     "as ibv_devices(1) shows it", ps->pst_name, ps->pst_line);
			ps->pst_section = ~0u;
			return;
		}
		strcpy(ps->pst_device, arg);
		ps->pst_section = RPCRDMA_CS_DEVICE;
		return;
	}
	ps->pst_section = !strcasecmp(word, "global") ? 0 :
			 !strcasecmp(word, "client") ? RPCRDMA_CS_CLIENT :
			 !strcasecmp(word, "server") ? RPCRDMA_CS_SERVER : ~0u;
	if (ps->pst_section != ~0u && *arg) {
		diag(c, true, "%s:%u: [%s] takes no name", ps->pst_name,
		     ps->pst_line, word);
		ps->pst_section = ~0u;
	} else if (ps->pst_section == ~0u) {
		near = closest(names, 4, sizeof(names[0]), word);
		diag(c, false, "%s:%u: unknown section [%s]%s%s%s; its keys are ignored",
		     ps->pst_name, ps->pst_line, word, near ? " (did you mean [" : "",
		     near ? near : "", near ? "]?)" : "");
	}
}

static void parse_setting(struct rpcrdma_conf *c, struct parse_state *ps,
			  char *line, char *eq)
{
	const struct rpcrdma_conf_key *k;
	struct conf_entry e;
	char err[256], *key, *val;
	const char *near;
	uint64_t v;
	int i;

	*eq = '\0';
	key = trim(line);
	if (!*key || value_of(eq + 1, &val)) {
		diag(c, true, "%s:%u: syntax error: expected 'key = value' or '[section]'",
		     ps->pst_name, ps->pst_line);
		return;
	}
	if (ps->pst_section == ~0u)
		return;
	i = rpcrdma_conf_key_index(c, key);
	if (i < 0) {
		near = rpcrdma_conf_suggest(c->c_keys, c->c_nkeys, key);
		diag(c, false, "%s:%u: unknown key '%s'%s%s%s; ignored", ps->pst_name,
		     ps->pst_line, key, near ? " (did you mean '" : "",
		     near ? near : "", near ? "'?)" : "");
		return;
	}
	k = &c->c_keys[i];
	if (ps->pst_section && !(k->ck_where & ps->pst_section)) {
		diag(c, false, "%s:%u: %s cannot be set in a [%s] section%s; ignored",
		     ps->pst_name, ps->pst_line, k->ck_name, section_name(ps->pst_section),
		     ps->pst_section == RPCRDMA_CS_DEVICE ?
		     " (it is used before the device is known)" :
		     k->ck_where & RPCRDMA_CS_CLIENT ? " (clients only)" :
		     " (servers only)");
		return;
	}
	if (!*val && k->ck_type != RPCRDMA_CT_STRING) {
		diag(c, true, "%s:%u: %s: no value", ps->pst_name, ps->pst_line,
		     k->ck_name);
		return;
	}
	if (rpcrdma_conf_parse_value(k, val, &v, err, sizeof(err))) {
		diag(c, true, "%s:%u: %s = %s: %s", ps->pst_name, ps->pst_line,
		     k->ck_name, val, err);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.e_key = (size_t)i;
	e.e_layer = ps->pst_layer;
	e.e_section = ps->pst_section;
	e.e_val = v;
	e.e_file = ps->pst_name;
	e.e_line = ps->pst_line;
	if (add_entry(c, &e, ps->pst_section == RPCRDMA_CS_DEVICE ? ps->pst_device :
		      NULL, k->ck_type == RPCRDMA_CT_STRING ? val : NULL))
		diag(c, true, "%s:%u: out of memory", ps->pst_name, ps->pst_line);
}

unsigned int rpcrdma_conf_parse(struct rpcrdma_conf *c, const char *name,
				const char *text, enum rpcrdma_conf_layer layer)
{
	unsigned int before = c->c_errors;
	struct parse_state ps;
	char *copy, *line, *next, *s, *eq;

	memset(&ps, 0, sizeof(ps));
	ps.pst_layer = layer;
	ps.pst_name = keep_name(c, name);
	copy = strdup(text);
	if (!ps.pst_name || !copy) {
		free(copy);
		diag(c, true, "%s: out of memory", name);
		return c->c_errors - before;
	}
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ps.pst_line++;
		s = trim(line);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			size_t n = strlen(s);

			if (s[n - 1] != ']') {
				diag(c, true, "%s:%u: syntax error: a section header "
				     "must end with ']'", ps.pst_name, ps.pst_line);
				ps.pst_section = ~0u;
				continue;
			}
			s[n - 1] = '\0';
			parse_section(c, &ps, s + 1);
			continue;
		}
		eq = strchr(s, '=');
		if (!eq) {
			diag(c, true, "%s:%u: syntax error: expected 'key = value' "
			     "or '[section]'", ps.pst_name, ps.pst_line);
			continue;
		}
		parse_setting(c, &ps, s, eq);
	}
	free(copy);
	return c->c_errors - before;
}

static int read_file(const char *path, char **text)
{
	size_t len = 0, cap = 4096, n;
	FILE *f = fopen(path, "r");
	char *buf, *nb;

	if (!f)
		return -errno;
	buf = malloc(cap + 1);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			if (cap >= (1u << 20)) {	/* no configuration is this big */
				free(buf);
				fclose(f);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	if (!buf || ferror(f)) {
		n = buf ? (size_t)EIO : (size_t)ENOMEM;
		free(buf);
		fclose(f);
		return -(int)n;
	}
	fclose(f);
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		free(buf);
		return -EINVAL;
	}
	*text = buf;
	return 0;
}

static int load_one(struct rpcrdma_conf *c, const char *path,
		    enum rpcrdma_conf_layer layer, bool must_exist)
{
	char *text = NULL;
	int rc = read_file(path, &text);

	if (rc == -ENOENT && !must_exist)
		return 0;
	if (rc) {
		diag(c, true, "%s: cannot read: %s", path,
		     rc == -EINVAL ? "not a text file" : strerror(-rc));
		return rc;
	}
	rpcrdma_conf_parse(c, path, text, layer);
	free(text);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

unsigned int rpcrdma_conf_load(struct rpcrdma_conf *c, const char *file,
			       bool must_exist)
{
	char **names = NULL, **nn, *dir, *path;
	size_t n = 0, i, len;
	struct dirent *de;
	DIR *d;

	load_one(c, file, RPCRDMA_CL_MAIN, must_exist);
	if (asprintf(&dir, "%s.d", file) < 0) {
		diag(c, true, "%s.d: out of memory", file);
		return c->c_errors;
	}
	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT)
			diag(c, true, "%s: cannot read: %s", dir, strerror(errno));
		free(dir);
		return c->c_errors;
	}
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 6 ||
		    strcmp(de->d_name + len - 5, ".conf"))
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		if (asprintf(&path, "%s/%s", dir, names[i]) >= 0) {
			load_one(c, path, RPCRDMA_CL_CONFD, true);
			free(path);
		}
		free(names[i]);
	}
	free(names);
	free(dir);
	return c->c_errors;
}

unsigned int rpcrdma_conf_load_env(struct rpcrdma_conf *c, char *const *envp)
{
	static const char prefix[] = "RPCRDMA_";
	char name[80], err[256];
	const struct rpcrdma_conf_key *k;
	const char *eq, *kept;
	struct conf_entry e;
	uint64_t v;
	size_t n;
	int i;

	for (; envp && *envp; envp++) {
		if (strncmp(*envp, prefix, sizeof(prefix) - 1))
			continue;
		eq = strchr(*envp, '=');
		n = eq ? (size_t)(eq - *envp) : 0;
		if (!eq || n >= sizeof(name))
			continue;
		memcpy(name, *envp, n);
		name[n] = '\0';
		/* Other RPCRDMA_ variables (RPCRDMA_CONF, RPCRDMA_DEBUG, the
		 * test suite's) are not keys. */
		i = rpcrdma_conf_key_index(c, name + sizeof(prefix) - 1);
		if (i < 0)
			continue;
		k = &c->c_keys[i];
		if (rpcrdma_conf_parse_value(k, eq + 1, &v, err, sizeof(err))) {
			diag(c, true, "%s: %s = %s: %s", name, k->ck_name, eq + 1, err);
			continue;
		}
		kept = keep_name(c, name);
		memset(&e, 0, sizeof(e));
		e.e_key = (size_t)i;
		e.e_layer = RPCRDMA_CL_ENV;
		e.e_val = v;
		e.e_file = kept;
		if (!kept || add_entry(c, &e, NULL, k->ck_type == RPCRDMA_CT_STRING ?
				       eq + 1 : NULL))
			diag(c, true, "%s: out of memory", name);
	}
	return c->c_errors;
}

unsigned int rpcrdma_conf_errors(const struct rpcrdma_conf *c)
{
	return c->c_errors;
}

size_t rpcrdma_conf_ndiags(const struct rpcrdma_conf *c)
{
	return c->c_ndiag;
}

const char *rpcrdma_conf_diag(const struct rpcrdma_conf *c, size_t i,
			      bool *is_error)
{
	if (i >= c->c_ndiag)
		return NULL;
	if (is_error)
		*is_error = c->c_diag[i].d_error;
	return c->c_diag[i].d_text;
}

/* ---- precedence ------------------------------------------------------ */

static enum rpcrdma_conf_layer layer_of(const struct conf_entry *e)
{
	return e->e_device ? RPCRDMA_CL_DEVICE : e->e_layer;
}

bool rpcrdma_conf_lookup(const struct rpcrdma_conf *c, size_t k,
			 unsigned int role, const char *device, uint64_t *val,
			 const char **str, struct rpcrdma_conf_origin *origin)
{
	const struct conf_entry *best = NULL, *e;
	size_t i;

	if (k >= c->c_nkeys || !(c->c_keys[k].ck_where & role))
		return false;
	for (i = 0; i < c->c_nent; i++) {
		e = &c->c_ent[i];
		if (e->e_key != k)
			continue;
		if (e->e_device ? !device || strcmp(e->e_device, device) :
		    e->e_section && e->e_section != role)
			continue;
		/* Later entries win ties: the last file, the last line. */
		if (best && (layer_of(e) < layer_of(best) ||
			     (layer_of(e) == layer_of(best) &&
			      !e->e_device && e->e_section < best->e_section)))
			continue;
		best = e;
	}
	if (!best)
		return false;
	*val = best->e_val;
	if (str)
		*str = best->e_str;
	if (origin) {
		origin->co_layer = layer_of(best);
		origin->co_file = best->e_file;
		origin->co_line = best->e_line;
		origin->co_device = best->e_device;
		origin->co_section = best->e_section;
	}
	return true;
}
