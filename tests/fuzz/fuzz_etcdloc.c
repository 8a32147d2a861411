/* Fuzz target: the etcd location etcd://HOST:PORT[/PREFIX] of --registry
 * and the rail_registry key, as the registry store reads it. */
#include "fuzz.h"
#include "ibf_rail.h"

#include <stdlib.h>
#include <string.h>

FUZZ_TARGET(etcdloc)
{
	char *url, *prefix;
	if (ibf_rail_etcd_location((const char *)data, size, &url, &prefix, NULL)) {
		if (url || prefix)
			abort(); /* refused: nothing to free */
		return 0;
	}
	/* http://HOST:PORT of letters, digits, . - _ and a port 1..65535 */
	size_t ul = strlen(url), pl = strlen(prefix);
	const char *colon = strchr(url + 7, ':');
	if (strncmp(url, "http://", 7) || !colon || colon == url + 7 || strchr(url + 7, '/'))
		abort();
	long port = 0;
	for (const char *c = colon + 1; *c; c++) {
		if (*c < '0' || *c > '9')
			abort();
		port = port * 10 + (*c - '0');
	}
	if (port < 1 || port > 65535)
		abort();
	/* the prefix: a key path, '/' at both ends */
	if (!pl || prefix[0] != '/' || prefix[pl - 1] != '/')
		abort();
	/* HOST:PORT as written, then the prefix (or the default) */
	if (memcmp(data + 7, url + 7, ul - 7))
		abort();
	if (size > ul && size - ul > 1 && memcmp(data + ul, prefix, size - ul))
		abort();
	free(url);
	free(prefix);
	return 0;
}
