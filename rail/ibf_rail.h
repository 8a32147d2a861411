/* Rail-aware path decision (h-ratio).  Pure arithmetic, no I/O: given the
 * health scores (integers 0..100, 100 idle, 0 blocked) of the rails and the
 * domains (servers) a GPU pair can use, choose the path class.  A path's
 * score is the product of the normalised scores of what it crosses. */
#ifndef IBF_RAIL_H
#define IBF_RAIL_H

enum ibf_rail_path {
	IBF_RAIL_D,      /* same domain: stay on NVLink/NVSwitch */
	IBF_RAIL_R,      /* same rail: stay on the rail */
	IBF_RAIL_RD,     /* source rail first, then destination domain */
	IBF_RAIL_DR,     /* source domain first, then destination rail */
	IBF_RAIL_REMOTE, /* d1 -> rail g3 -> d2 over a third rail */
};

/* Scores: -1 means unknown (missing entry); unknown scores count as the
 * caller's default (dflt, 0..100).  Out-of-range values are clamped. */
struct ibf_rail_scores {
	int nrails, ndomains;
	const int *rail;   /* [nrails] */
	const int *domain; /* [ndomains] */
	int dflt;
};

struct ibf_rail_choice {
	enum ibf_rail_path path;
	int via_rail;  /* rail carrying the inter-domain hop (r/rd: g1, dr: g2, remote: g3) */
	double score;  /* product of normalised scores of the chosen path */
	double rd, dr, remote; /* the alternatives' scores (remote: best third rail, 0 if none) */
	double gamma_src, gamma_dst;
};

/* Decide for GPU g1 of domain d1 to GPU g2 of domain d2.  Ties between rd
 * and dr go to prefer_rd (the configured default); a remote rail wins only
 * when strictly better than both.  Returns -1 on an index out of range. */
int ibf_rail_decide(const struct ibf_rail_scores *s, int d1, int g1, int d2, int g2,
		    int prefer_rd, struct ibf_rail_choice *out);

const char *ibf_rail_path_name(enum ibf_rail_path p);

#endif
