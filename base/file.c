/* Whole-file reading and atomic output files. */
#include "ibf_base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ibf_atomic_open(struct ibf_atomic *a, const char *path, struct ibf_error *err)
{
	memset(a, 0, sizeof(*a));
	if (strcmp(path, "-") == 0) {
		a->fp = stdout;
		return 0;
	}
	/* A device, FIFO or socket (/dev/stdout to a terminal or a pipe,
	 * /dev/null) is written in place: renaming a file over it would
	 * replace the node (as root, /dev/stdout became a regular file). */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		a->fp = fopen(path, "a");
		if (!a->fp)
			return ibf_error_set(err, IBF_EIO, path, 0, "cannot open: %s",
					     strerror(errno));
		a->direct = 1;
		if (!(a->path = strdup(path))) {
			fclose(a->fp);
			return ibf_error_set(err, IBF_ENOMEM, path, 0, "out of memory");
		}
		return 0;
	}
	/* a directory cannot be replaced by the file: refused now, before the
	 * caller writes anything (the rename would only fail at the commit,
	 * after other outputs of the command were renamed into place) */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return ibf_error_set(err, IBF_EIO, path, 0, "cannot write: is a directory");
	/* a symbolic link to a file: the file it names is replaced, not the
	 * link */
	char *real = NULL;
	const char *target = path; /* errors name path, as given */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(path, NULL)))
		target = real;
	size_t n = strlen(target);
	a->path = malloc(n + 1);
	a->tmp = malloc(n + 16);
	if (a->path)
		memcpy(a->path, target, n + 1);
	free(real);
	if (!a->path || !a->tmp) {
		free(a->path);
		free(a->tmp);
		a->path = a->tmp = NULL;
		return ibf_error_set(err, IBF_ENOMEM, path, 0, "out of memory");
	}
	/* O_EXCL with mode 0666 so the file gets the caller's umask (mkstemp
	 * would make every output 0600) */
	static unsigned counter;
	int fd = -1;
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		unsigned k = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		snprintf(a->tmp, n + 16, "%s.t%05u%04u", a->path, (unsigned)getpid() % 100000u,
			 k % 10000u);
		fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;
		free(a->path);
		free(a->tmp);
		a->path = a->tmp = NULL;
		return ibf_error_set(err, IBF_EIO, path, 0, "cannot create: %s", strerror(e));
	}
	a->fp = fdopen(fd, "w");
	if (!a->fp) {
		int e = errno;
		close(fd);
		unlink(a->tmp);
		free(a->path);
		free(a->tmp);
		a->path = a->tmp = NULL;
		return ibf_error_set(err, IBF_EIO, path, 0, "cannot open: %s", strerror(e));
	}
	return 0;
}

int ibf_atomic_commit(struct ibf_atomic *a, int ok, struct ibf_error *err)
{
	int rc = 0;
	if (!a->path) { /* stdout */
		if (fflush(a->fp) != 0 || ferror(a->fp))
			rc = ibf_error_set(err, IBF_EIO, "-", 0, "write error");
		a->fp = NULL;
		return ok ? rc : IBF_EIO;
	}
	if (a->direct) { /* a device: nothing to rename or remove */
		if (ferror(a->fp) | (fclose(a->fp) != 0))
			rc = ibf_error_set(err, IBF_EIO, a->path, 0, "write error");
		a->fp = NULL;
		free(a->path);
		a->path = NULL;
		a->direct = 0;
		return ok ? rc : IBF_EIO;
	}
	if (ferror(a->fp))
		ok = 0, rc = ibf_error_set(err, IBF_EIO, a->path, 0, "write error");
	if (fclose(a->fp) != 0 && ok)
		ok = 0,
		rc = ibf_error_set(err, IBF_EIO, a->path, 0, "write error: %s", strerror(errno));
	a->fp = NULL;
	if (ok) {
		if (rename(a->tmp, a->path) != 0) {
			rc = ibf_error_set(err, IBF_EIO, a->path, 0, "cannot rename: %s",
					   strerror(errno));
			unlink(a->tmp);
		}
	} else {
		unlink(a->tmp);
		if (!rc)
			rc = IBF_EIO;
	}
	free(a->path);
	free(a->tmp);
	a->path = a->tmp = NULL;
	return rc;
}

/* ------------------------------------------------------------ reading */

static atomic_int stdin_claimed;

int ibf_stdin_claim(const char *path, struct ibf_error *err)
{
	if (strcmp(path, "-") != 0 || !atomic_exchange(&stdin_claimed, 1))
		return 0;
	return ibf_error_set(err, IBF_EINVAL, path, 0,
			     "standard input was already read for another input of this "
			     "command: name at most one input '-'");
}

int ibf_slurp_limit(const char *path, size_t max, char **out, size_t *outlen, struct ibf_error *err)
{
	if (ibf_stdin_claim(path, err))
		return IBF_EINVAL;
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!fp)
		return ibf_error_set(err, IBF_EIO, path, 0, "cannot open: %s", strerror(errno));
	size_t cap = 1 << 16, len = 0;
	struct stat st;
	int rc = 0;
	if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX / 2)
		cap = (size_t)st.st_size + 1;
	char *buf = malloc(cap);
	if (!buf) {
		rc = ibf_error_set(err, IBF_ENOMEM, path, 0, "out of memory");
		goto out;
	}
	for (;;) {
		if (len == cap) { /* keep room for the NUL */
			char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
			if (!nb) {
				rc = ibf_error_set(err, IBF_ENOMEM, path, 0, "out of memory");
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		size_t r = fread(buf + len, 1, cap - len, fp);
		len += r;
		if (max && len > max) {
			rc = ibf_error_set(err, IBF_EINVAL, path, 0,
					   "file too large (over %zu bytes)", max);
			goto out;
		}
		if (r == 0)
			break;
	}
	if (ferror(fp)) {
		rc = ibf_error_set(err, IBF_EIO, path, 0, "read error: %s", strerror(errno));
		goto out;
	}
	if (len == cap) {
		char *nb = realloc(buf, cap + 1);
		if (!nb) {
			rc = ibf_error_set(err, IBF_ENOMEM, path, 0, "out of memory");
			goto out;
		}
		buf = nb;
	}
	buf[len] = '\0';
out:
	if (fp != stdin)
		fclose(fp);
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

int ibf_slurp(const char *path, char **buf, size_t *len, struct ibf_error *err)
{
	return ibf_slurp_limit(path, 0, buf, len, err);
}
