/* sim/ private: the flow-link incidence shared by max-min and MAT. */
#ifndef IBF_SIM_INTERNAL_H
#define IBF_SIM_INTERNAL_H
#include "ibf_sim.h"

/* Flows of a phase that cross the network (local flows dropped), each
 * with its links and their weights w/128 (split flows: k/L per link). */
struct sim_inc {
	uint64_t nf, local;
	uint64_t *off; /* [nf + 1] into inc */
	uint32_t *inc; /* link | weight << 24 (SIM_INC) */
	uint64_t ninc;
	double *demand;	 /* [nf] 0 = elastic */
	uint64_t *index; /* [nf] the flow's index in the phase; NULL when no
			     * flow was local (index = position) */
};
#define SIM_MAX_LINKS (1u << 24)
#define SIM_INC(link, w) ((uint32_t)(link) | (uint32_t)(w) << 24)
#define SIM_LINK(v) ((v) & (SIM_MAX_LINKS - 1))
#define SIM_W(v) ((v) >> 24)
int sim_inc_build(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
		  const struct ibf_sim_phase *ph, const struct ibf_sim_layer_policy *lp,
		  struct sim_inc *in, struct ibf_error *err);
void sim_inc_free(struct sim_inc *in);
/* Max-min fair rates of in's flows over links with capacity cap (only
 * links with use[e] != 0 when use is given) into rate[nf]; load (optional)
 * gets each link's load.  0, or -1 when out of memory. */
int sim_maxmin(const struct sim_inc *in, const double *cap, uint32_t nlinks, const uint8_t *use,
	       double *rate, double *load);
/* Completion times of in's flows (fluid model, docs/sim.md): each flow
 * moves bytes[f] starting at rate0[f] (sim_maxmin's rates over all of
 * cap); when flows finish (those within a relative eps of the earliest
 * together; eps 0: 1e-9) the flows at least as fast as the slowest of
 * them get the max-min rates of what is left, the slower ones keep
 * theirs.  Runs until
 * every flow with counted[f] (NULL: all) is done; fct[f] in microseconds,
 * INFINITY for a flow that never finishes or was not needed; *steps the
 * re-solves.  0, or -1 when out of memory. */
int sim_fluid(const struct sim_inc *in, const double *cap, uint32_t nlinks, const double *bytes,
	      const uint8_t *counted, const double *rate0, double eps, double *fct,
	      uint64_t *steps);
/* A host named in a file: HOST[:PORT] (a node name, description, its
 * first word, a node or port GUID; PORT the CA port, default the first
 * cabled one).  tok is changed (the :PORT cut off).  Returns the host
 * index, or a negative code with "unknown host" / "bad port" / "no such
 * port" at path:line in err. */
int sim_host_token(const struct ibf_sim_net *n, char *tok, const char *path, unsigned line,
		   struct ibf_error *err);
#endif
