/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --bench boot, livefish rows: the boot push through the config-space
 * gateway of an emulated BlueField-1/-2/-3 with no NIC firmware
 * (sim:bfN,livefish=1), with rshim-pmd's policy and gateway sequence and
 * with the reference daemon's (lib/bench/rsh_bench_ref_boot.c's push on
 * the reference's gateway sequence, lfseq=ref), under the cost model at a config-cycle
 * cost. Emulator figures: the config-cycle cost is a model, not a
 * measurement on silicon.
 *
 * The reference's sequence as its code behaves (rshim-user-space
 * src/rshim_pcie_lf.c, v2.8.2), per access:
 *  - pci_cap_read/pci_cap_write (lines 88-124): 2 config cycles a CR dword;
 *  - BF1 crspace_rsh_gw_read/write (376-473): the TRIO lock taken (poll
 *    read + write, 337-361) and freed (363-371) around every 4-byte
 *    access, address and control written each time: 14 cycles;
 *  - BF2 (381-385, 429-433): one CR dword, 2 cycles;
 *  - rshim_byte_acc_read (529-591): pending, interlock (BF2), ADDR, CTL,
 *    pending, RDAT, pending, RDAT, release: BF1 98, BF2 18 cycles;
 *  - rshim_byte_acc_write (593-636): BF1 70, BF2 14;
 *  - rshim_boot_fifo_write (645-661): two 4-byte writes into the holding
 *    register: BF1 28, BF2 4 cycles a word;
 *  - msn_gw_read/write (183-334): lock poll, ADDR, ACC_WIDTH, ACC_TYPE,
 *    data, REG0 read, REG0 write, busy poll, release: BF3 20 a word;
 *  - BF1 write_count (746-752): after 7 writes a read is called with
 *    size rc = 0, which returns -EINVAL before any access (693-694):
 *    no drain read happens; write_count is cleared by reads only (706).
 * The floor the gateway sets (rshim-pmd's sequence, doc/hardware-notes.md
 * §L7): a boot word is 2 CR writes into the holding register on BF1/BF2
 * (BF1: data + trigger each, the TRIO lock and address held for the
 * burst, plus a 12-cycle widget-register read every 7 words), one MSN
 * access of 8 cycles on BF3 with the lock and address held; one status
 * read per credit of FIFO words.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

/* The floor's parts per generation, config cycles (doc/hardware-notes.md
 * §L7; the unit test pci_lf pins each against the gateway). */
struct rsh_bench_lf_floor {
	const char *gen;
	double per_word;    /* boot word */
	double drain;       /* BF1: one drain read */
	double per_burst;   /* lock, address setup, unlock */
	double status;      /* one BOOT_FIFO_COUNT read */
	double credit;      /* words per status read */
};

static const struct rsh_bench_lf_floor rsh_bench_lf_floors[] = {
	{ "bf1", 8, 12, 10, 62, 509 },
	{ "bf2", 4, 0, 0, 18, 509 },
	{ "bf3", 8, 0, 12, 20, 1021 },
};

/* Config cycles per MiB the gateway cannot go below. */
double
rsh_bench_lf_floor(const char *gen)
{
	for (unsigned int i = 0; i < RTE_DIM(rsh_bench_lf_floors); i++) {
		const struct rsh_bench_lf_floor *f = &rsh_bench_lf_floors[i];

		/* BF1: a burst of n words after a status read (itself a read)
		 * needs (n - 1) / 7 drain reads of its own (§1.9). */
		if (strcmp(f->gen, gen) == 0)
			return 131072.0 * f->per_word +
			       131072.0 / f->credit * (f->per_burst + f->status +
						       f->drain * (unsigned int)((f->credit - 1) / 7));
	}
	return 0;
}

/* One-core ceiling through the gateway at this config-cycle cost. */
double
rsh_bench_lf_ceiling(const char *gen)
{
	double ns = rsh_bench_lf_floor(gen) * RSH_BENCH_CFG_NS;

	return ns > 0 ? 1e9 / ns : 0;
}

/* The livefish rows: per generation, both policies, no drain limit (the
 * gateway is the bottleneck). */
unsigned int
rsh_bench_lf_plan(struct rsh_bench_res *rows, unsigned int max)
{
	static const char *const gens[] = { "bf1", "bf2", "bf3" };
	unsigned int n = 0;

	for (unsigned int g = 0; g < RTE_DIM(gens); g++)
		for (int pol = 0; pol < 2 && n < max; pol++) {
			struct rsh_bench_cfg *c = &rows[n++].cfg;

			c->gen = gens[g];
			c->cost = true;
			c->livefish = true;
			c->pol = pol ? RSH_BENCH_REF : RSH_BENCH_PMD;
		}
	return n;
}

/* One line: MiB/s, config cycles per MiB and against the floor. */
static void
rsh_bench_lf_line(const struct rsh_bench_res *r, const struct rsh_bench_res *ref)
{
	double mib = r->bytes / 1048576.0, cyc = mib > 0 ? (r->reads + r->writes) / mib : 0;
	double floor = rsh_bench_lf_floor(r->cfg.gen);
	double rate = r->time_s > 0 ? mib / r->time_s : 0;
	double rref = ref != NULL && ref->time_s > 0 ? ref->bytes / 1048576.0 / ref->time_s : 0;

	printf("%-4s %-10s %9.2f %13.0f %13.0f %9.3fx %11s%s\n", r->cfg.gen,
	       r->cfg.pol == RSH_BENCH_PMD ? "rshim-pmd" : "reference", rate, cyc, floor,
	       floor > 0 ? cyc / floor : 0, "",
	       r->rc < 0 ? "  (failed)" : r->partial ? "  (time budget)" : "");
	if (r->cfg.pol == RSH_BENCH_PMD && rref > 0)
		printf("%-4s %-10s %9.2fx faster than the reference's sequence\n", "", "", rate / rref);
}

/* The livefish table (rows with cfg.livefish), after the BAR table. */
void
rsh_bench_lf_print(const struct rsh_bench_res *rows, unsigned int n)
{
	printf("\nboot FIFO push through livefish (no NIC firmware, config-space gateway), emulated\n"
	       "BlueField (sim:bfN,livefish=1), cost model: one config cycle %u ns (a model)\n",
	       RSH_BENCH_CFG_NS);
	printf("%-4s %-10s %9s %13s %13s %10s\n", "gen", "policy", "MiB/s", "cfg/MiB",
	       "floor/MiB", "of floor");
	for (unsigned int i = 0; i < n; i++) {
		const struct rsh_bench_res *ref = i + 1 < n ? &rows[i + 1] : NULL;

		if (!rows[i].cfg.livefish)
			continue;
		rsh_bench_lf_line(&rows[i], ref != NULL && ref->cfg.livefish &&
				  ref->cfg.pol == RSH_BENCH_REF ? ref : NULL);
	}
	printf("(cfg = config-space accesses, reads + writes; floor = the fewest the gateway allows:\n"
	       " the holding register / one MSN access a word, the lock held for a burst, one status\n"
	       " read per credit, BF1's read every 7 words; reference = rshim_pcie_lf.c's sequence\n"
	       " under the reference daemon's push; MiB/s over wall + charged config time)\n");
	printf("livefish ceilings, one core: ");
	for (unsigned int g = 1; g <= 3; g++) {
		char gen[8];

		snprintf(gen, sizeof(gen), "bf%u", g);
		printf("%s%s %.2f MiB/s", g > 1 ? ", " : "", gen, rsh_bench_lf_ceiling(gen));
	}
	printf("\n");
}
