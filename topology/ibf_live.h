/* Live discovery of the fabric this host is cabled to (libibnetdisc), as a
 * topology source like any file.  Kept out of ibf_topology.h: only programs
 * that link libibflive (the ibfab command) have it, so the core library and
 * the OpenSM plugin do not depend on libibnetdisc/libibmad. */
#ifndef IBF_LIVE_H
#define IBF_LIVE_H
#include "ibf_topology.h"

/* Discover from local HCA `ca` (NULL: the first active one) port `port`
 * (0: the first active one).  Nodes with their GUIDs, system image GUIDs,
 * vendor/device ids and descriptions; links with active width/speed and the
 * supported width/speed of both ends (so degraded links are judged on exact
 * evidence); switch and CA port LIDs/LMC as the SM assigned them.  The
 * fabric is finalized.  NULL with err set on failure; IBF_ENOTSUP when this
 * build has no libibnetdisc. */
struct ibf_fabric *ibf_fabric_discover(const char *ca, int port, struct ibf_error *err);
int ibf_have_live(void);

#endif
