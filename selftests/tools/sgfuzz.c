// SPDX-License-Identifier: GPL-2.0
/*
 * sgfuzz.c - fuzz the kfunc boundary of slackgov.ko (selftests/debug/
 * debug-fuzz.sh, make check-debug, which loads and unloads the random
 * struct_ops policies meanwhile): random samples handed to
 * slackgov_report() through selftests/governor/progs/sg_inject.bpf.c, each
 * answer checked against what the kfunc's contract says it returns.
 *
 * Usage: sgfuzz [-n INPUTS] [-s SEED] [-v]
 *   -n samples to hand over (default 10000)   -s seed (default: the time)
 *   -v print each mismatch (the first 10 are always printed)
 *
 * A sample's fields are drawn one by one: usually a value in the field's
 * range, sometimes an edge (0, the maximum, one past it, any 32 bits); its
 * size and ABI version are wrong one time in sixteen each; its CPU mask is
 * one of the CPUs, both, none, or a random word with CPUs that do not
 * exist.  The expected answer follows the kfunc's kernel-doc and
 * sg_sample_valid(): -EINVAL for an invalid sample or CPU, -ENODEV when no
 * named CPU runs the slack governor, else 0 without an SLO or a budget in
 * 1 .. slo_us with one.  The governed CPUs are read from sysfs at the start:
 * nothing may switch governors while it runs.
 * Prints "inputs=N ok=N einval=N enodev=N mismatch=N seed=S"; exit 0 when
 * every input was handed over.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "slackgov.h"
#include "sg_inject.skel.h"

/* kmod/kfunc.c's bounds, which are not in slackgov.h */
#define SG_RPS_MAX	100000000U
#define SG_KNOWN_FLAGS	(SLACKGOV_SAMPLE_IDLE | SLACKGOV_SAMPLE_BY_COUNT | SLACKGOV_SAMPLE_EXITED)

struct sg_inject_stats {	/* mirrors the BPF side's */
	__u64 nr_ok;
	__u64 nr_err;
	__s32 last_ret;
	__u32 pad;
};

static __u64 rng;

static __u64 rnd64(void)	/* xorshift64* */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static __u32 rnd(__u32 n)
{
	return n ? rnd64() % n : 0;
}

/*
 * A field: mostly in [0, max], one time in 16 each 0 or max, one in 64 each
 * max + 1 or any 32 bits: with some 20 checked fields about half the
 * samples are valid in all of them
 */
static __u32 field(__u32 max)
{
	switch (rnd(64)) {
	case 0 ... 3: return 0;
	case 4 ... 7: return max;
	case 8: return max + 1;
	case 9: return (__u32)rnd64();
	default: return rnd(max + 1);
	}
}

static int nr_cpu_ids_read(void)
{
	int lo, hi = -1;
	char buf[64];
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%d-%d", &lo, &hi) < 2)
		hi = lo;
	fclose(f);
	return hi + 1;
}

static bool governed(int cpu)
{
	char path[96], gov[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(gov, sizeof(gov), f))
		gov[0] = 0;
	fclose(f);
	return !strcmp(gov, "slack\n");
}

static void make_sample(struct slackgov_sample *s, int ncpus)
{
	__u32 r;
	int w;

	memset(s, 0, sizeof(*s));
	s->size = rnd(16) ? sizeof(*s) : field(2 * sizeof(*s));
	s->version = rnd(16) ? SLACKGOV_ABI_VERSION : field(SLACKGOV_ABI_VERSION + 1);
	s->target = field(SLACKGOV_MAX_TARGETS - 1);
	s->flags = rnd(8) ? rnd64() & SG_KNOWN_FLAGS : (__u32)rnd64();
	s->len_ns = rnd64() % 100000000;
	s->slack = field(SLACKGOV_ONE);
	s->cv = field(rnd(2) ? 3000 : SLACKGOV_CV_MAX);
	s->util = field(SLACKGOV_ONE);
	s->setpoint = rnd(2) ? 0 : field(SLACKGOV_ONE);
	s->rps = field(rnd(2) ? 100000 : SG_RPS_MAX);
	s->nr_req = field(100000);
	s->nr_recv = field(100000);
	s->nr_wait = field(100000);
	if (rnd(2)) {
		s->slo_us = field(rnd(2) ? 50000 : SLACKGOV_LAT_MAX_US);
		s->slo_q = rnd(8) ? SLACKGOV_Q_DEFAULT : field(SLACKGOV_Q_ONE);
	}
	s->nr_lat = field(rnd(2) ? 1000 : SG_RPS_MAX);
	s->lat_q_us = field(rnd(2) ? 100000 : SLACKGOV_LAT_MAX_US);
	s->lat_win_us = field(rnd(2) ? 100000 : SLACKGOV_LAT_MAX_US);
	s->queue_us = field(rnd(2) ? 100000 : SLACKGOV_LAT_MAX_US);
	s->svc_us = field(rnd(2) ? 100000 : SLACKGOV_LAT_MAX_US);
	switch (rnd(4)) {
	case 0: s->slo_margin = 0; break;
	case 1: s->slo_margin = SLACKGOV_MARGIN_OWN | field(SLACKGOV_MARGIN_MAX); break;
	case 2: s->slo_margin = field(SLACKGOV_MARGIN_MAX); break;
	default: s->slo_margin = (__u32)rnd64(); break;
	}
	s->nr_over = rnd(4) ? rnd(s->nr_lat + 1) : field(s->nr_lat);
	s->budget_us = field(rnd(2) ? 50000 : SLACKGOV_LAT_MAX_US);
	r = rnd(8);
	if (r < 5)			/* one of the CPUs, or all of them */
		s->cpus[0] = r < 4 ? 1ULL << rnd(ncpus) : (1ULL << ncpus) - 1;
	else if (r == 5)		/* none */
		;
	else				/* any word, maybe CPUs that do not exist */
		for (w = rnd(SLACKGOV_CPU_WORDS); w < SLACKGOV_CPU_WORDS; w += 1 + rnd(4))
			s->cpus[w] = rnd64() & rnd64();
}

/* what the kfunc must answer: -EINVAL, -ENODEV, or 1 (stored) */
static int expect(const struct slackgov_sample *s, int ncpus, const bool *gov, bool *any_slo)
{
	bool named = false, stored = false;
	int w, b;

	*any_slo = s->slo_us != 0;
	if (s->size != sizeof(*s) || s->version != SLACKGOV_ABI_VERSION ||
	    s->target >= SLACKGOV_MAX_TARGETS || s->slack > SLACKGOV_ONE ||
	    s->setpoint > SLACKGOV_ONE || s->cv > SLACKGOV_CV_MAX || s->rps > SG_RPS_MAX ||
	    (s->flags & ~SG_KNOWN_FLAGS) || s->slo_us > SLACKGOV_LAT_MAX_US ||
	    s->slo_q > SLACKGOV_Q_ONE || (s->slo_us && !s->slo_q) ||
	    !slackgov_margin_valid(s->slo_margin) || s->nr_lat > SG_RPS_MAX ||
	    s->lat_q_us > SLACKGOV_LAT_MAX_US || s->lat_win_us > SLACKGOV_LAT_MAX_US ||
	    s->queue_us > SLACKGOV_LAT_MAX_US || s->svc_us > SLACKGOV_LAT_MAX_US ||
	    s->nr_over > s->nr_lat || s->budget_us > SLACKGOV_LAT_MAX_US)
		return -EINVAL;
	for (w = 0; w < SLACKGOV_CPU_WORDS; w++)
		for (b = 0; b < 64; b++) {
			if (!(s->cpus[w] & (1ULL << b)))
				continue;
			if (w * 64 + b >= ncpus)
				return -EINVAL;
			named = true;
			stored |= gov[w * 64 + b];
		}
	if (!named)
		return -EINVAL;
	return stored ? 1 : -ENODEV;
}

static void dump(const struct slackgov_sample *s, int want, int got)
{
	fprintf(stderr, "sgfuzz: mismatch: want %d got %d: size %u version %u target %u flags %#x "
		"slack %u cv %u setpoint %u rps %u slo %u/%u margin %#x nr_lat %u over %u "
		"lat_q %u win %u queue %u svc %u budget %u cpus %#llx,%#llx,%#llx,%#llx\n",
		want, got, s->size, s->version, s->target, s->flags, s->slack, s->cv, s->setpoint,
		s->rps, s->slo_us, s->slo_q, s->slo_margin, s->nr_lat, s->nr_over, s->lat_q_us,
		s->lat_win_us, s->queue_us, s->svc_us, s->budget_us,
		(unsigned long long)s->cpus[0], (unsigned long long)s->cpus[1],
		(unsigned long long)s->cpus[2], (unsigned long long)s->cpus[3]);
}

int main(int argc, char **argv)
{
	long n = 10000, i, nok = 0, neinval = 0, nenodev = 0, nmis = 0;
	struct sg_inject_bpf *skel;
	struct sg_inject_stats st;
	struct slackgov_sample s;
	bool verbose = false, gov[SLACKGOV_MAX_CPUS] = {};
	unsigned long long seed = time(NULL);
	int opt, ncpus, c, sfd, stfd, want, got;
	__u32 zero = 0;
	bool slo;

	while ((opt = getopt(argc, argv, "n:s:v")) != -1) {
		switch (opt) {
		case 'n': n = strtol(optarg, NULL, 10); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'v': verbose = true; break;
		default:
			fprintf(stderr, "usage: sgfuzz [-n INPUTS] [-s SEED] [-v]\n");
			return 2;
		}
	}
	rng = seed ? seed : 1;
	ncpus = nr_cpu_ids_read();
	if (ncpus <= 0 || ncpus > 64) {
		fprintf(stderr, "sgfuzz: cannot read the possible CPUs (or more than 64)\n");
		return 1;
	}
	for (c = 0; c < ncpus; c++)
		gov[c] = governed(c);

	skel = sg_inject_bpf__open();
	if (!skel) {
		fprintf(stderr, "sgfuzz: open failed: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->target_tgid = getpid();
	if (sg_inject_bpf__load(skel) || sg_inject_bpf__attach(skel)) {
		fprintf(stderr, "sgfuzz: feed load/attach failed: %s\n", strerror(errno));
		sg_inject_bpf__destroy(skel);
		return 1;
	}
	sfd = bpf_map__fd(skel->maps.sample);
	stfd = bpf_map__fd(skel->maps.stats);

	for (i = 0; i < n; i++) {
		make_sample(&s, ncpus);
		want = expect(&s, ncpus, gov, &slo);
		/* the BPF side bumps seq and stamps end_ns itself */
		if (bpf_map_update_elem(sfd, &zero, &s, BPF_ANY))
			break;
		syscall(SYS_getppid);
		if (bpf_map_lookup_elem(stfd, &zero, &st))
			break;
		got = st.last_ret;
		if (got >= 0)
			nok++;
		else if (got == -EINVAL)
			neinval++;
		else if (got == -ENODEV)
			nenodev++;
		if (want < 0 ? got != want :
		    got < 0 || (slo ? got < 1 || (__u32)got > s.slo_us : got != 0)) {
			if (nmis++ < 10 || verbose)
				dump(&s, want < 0 ? want : slo ? (int)s.slo_us : 0, got);
		}
	}
	printf("inputs=%ld ok=%ld einval=%ld enodev=%ld mismatch=%ld seed=%llu\n",
	       i, nok, neinval, nenodev, nmis, seed);
	sg_inject_bpf__destroy(skel);
	return i == n ? 0 : 1;
}
