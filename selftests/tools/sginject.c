// SPDX-License-Identifier: GPL-2.0
/*
 * sginject.c - feed chosen samples to slackgov.ko for the governor tests,
 * through selftests/governor/progs/sg_inject.bpf.c (a tp_btf program that
 * calls the kfunc when this process calls getppid()).
 *
 * Usage: sginject [-s SLACK] [-c CV] [-C CPU[,CPU...]] [-t TARGET] [-p SETPOINT]
 *                 [-r RPS] [-V VERSION] [-z SIZE] [-f FLAGS] [-i MS] [-d MS]
 *   -s slack (thousandths, default 500)   -c cv (thousandths, default 1000)
 *   -C CPUs named by the sample (default 0) -t target slot (default 0)
 *   -p per-target setpoint (default 0 = the governor's)  -r rps (default 0)
 *   -V ABI version and -z size fields (default: the right ones; for tests
 *      of rejection)  -f flags   -i interval between samples, ms (default 10)
 *   -d how long to feed, ms (default 1000; 0 = one sample)
 *   -L LOAD:MS[,LOAD:MS...]  plant mode instead of a fixed slack: a synthetic
 *      server whose work per window is LOAD thousandths of a CPU at the
 *      highest frequency; each sample's slack is 1000 - LOAD * fmax / f with
 *      f the current scaling_cur_freq of the first CPU of -C (so the governor
 *      closes the loop), phase after phase, MS each.  Prints one line per
 *      sample: "sample i=N phase=P load=L khz=F slack=S".
 *   -S SLO_US[:Q]  the target's SLO (Q in ten-thousandths, default 9900)
 *   -m MARGIN  the sample's slo_margin field as is (0x80000000 | thousandths:
 *      the target's own margin; default 0, the module's knob)
 *   -n NR_LAT -l LAT_Q_US -w LAT_WIN_US -q QUEUE_US -v SVC_US -o NR_OVER
 *      -b BUDGET_US  latency fields
 *   -M RATE:MS[,RATE:MS...]  queue mode: a synthetic M/M/1 server (the
 *      SLO law's model) with RATE requests per second, each -v SVC_US of
 *      work at the highest frequency (default 1000), served at the current
 *      frequency f of the first CPU of -C; per window it reports the busy
 *      share as slack, svc, the mean queueing, the window's p-quantile and
 *      the one over the last ~2000 requests.  At rho >= 1 a backlog builds
 *      (and drains later at the rate the frequency allows).  -B BIAS
 *      (percent, default 100) scales the tail and the queue (a server
 *      burstier than the model).  Its requests over the budget T the module
 *      returned for the last sample (nr_over, budget_us: the BPF side's
 *      count) are those the model's tail puts over T, their fractions
 *      carried from window to window.  Prints one line per sample:
 *      "sample i=N phase=P rate=R khz=F slack=S queue=Q lat=P99 latq=P99R
 *      over=N budget=T".
 * Prints "ok=N err=N last_ret=N" at the end (last_ret: the kfunc's return,
 * the budget T for an accepted sample of an SLO target, else 0 or -errno);
 * exit 0 when the feed loaded.
 */
#include <errno.h>
#include <math.h>
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

struct sg_inject_stats {	/* mirrors the BPF side's */
	__u64 nr_ok;
	__u64 nr_err;
	__s32 last_ret;
	__u32 pad;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static long read_khz(int cpu, const char *file)
{
	char path[128];
	long khz = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/%s", cpu, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &khz) != 1)
		khz = -1;
	fclose(f);
	return khz;
}

#define MAX_PHASES	16

static int parse_phases(char *arg, long *load, long *ms)
{
	char *tok, *save = NULL;
	int n = 0;

	for (tok = strtok_r(arg, ",", &save); tok && n < MAX_PHASES;
	     tok = strtok_r(NULL, ",", &save), n++) {
		if (sscanf(tok, "%ld:%ld", &load[n], &ms[n]) != 2 || load[n] < 0 || ms[n] <= 0)
			return -1;
	}
	return n;
}

static int parse_cpus(const char *arg, struct slackgov_sample *s)
{
	char *dup = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long cpu = strtol(tok, NULL, 10);

		if (cpu < 0 || cpu >= SLACKGOV_MAX_CPUS) {
			ret = -1;
			break;
		}
		s->cpus[cpu / 64] |= 1ULL << (cpu % 64);
	}
	free(dup);
	return ret;
}

/*
 * Queue mode (-M): an M/M/1 server with service svc0 * fmax / f.  Its
 * sojourn time at quantile q is c_q / (mu - lambda), c_q = ln(1 / (1 - q)),
 * its mean queueing rho / (mu - lambda); with rho >= 1 the work that does
 * not fit in a window is carried as a backlog, whose wait adds to both.
 * A request's sojourn time is over x with probability e^(-(mu - lambda) x)
 * (over x - wait with a backlog's wait).
 * The percentile over recent requests starts at the first window's and
 * follows the window's with a weight of the window's share of the BPF
 * side's horizon (its requests over SLACKGOV_LAT_RECENT_REQS, or its
 * length over SLACKGOV_LAT_RECENT_MS, whichever is larger).  The window's
 * util is the server's busy share and nr_req its whole requests, so that
 * the governor's work per request (on-CPU time * f / requests) is svc.
 */
static void run_queue(struct sg_inject_bpf *skel, struct slackgov_sample *s, int fcpu,
		      long fmax_khz, long interval, const long *rate, const long *ms, int n,
		      long bias)
{
	double svc0 = s->svc_us ? s->svc_us : 1000, backlog = 0, latq = 0, arrived = 0, over = 0;
	struct sg_inject_stats st = {};
	double q = (s->slo_q ? s->slo_q : SLACKGOV_Q_DEFAULT) / (double)SLACKGOV_Q_ONE;
	double cq = log(1 / (1 - fmin(q, 0.9999))), b = bias / 100.0;
	double win_us = interval * 1000.0;
	__u32 zero = 0;
	int ph, i = 0;
	double end;

	for (ph = 0; ph < n; ph++) {
		for (end = now_ms() + ms[ph]; now_ms() < end; i++) {
			long khz = read_khz(fcpu, "scaling_cur_freq");
			double svc = svc0 * fmax_khz / (khz > 0 ? khz : fmax_khz);
			double lam = rate[ph] / 1e6, rho = lam * svc;	/* per us */
			double gap = 1 / svc - lam, wait, p99, queue, nr = lam * win_us, t;

			/* backlog: work left over from windows at rho >= 1, in us */
			backlog = fmax(0, backlog + (rho - 1) * win_us);
			wait = backlog / 2;		/* mean over the window */
			if (gap > 1 / (100 * svc)) {
				queue = b * rho / gap + wait;
				p99 = b * cq / gap + wait;
			} else {			/* rho > 0.99: bounded by the backlog */
				queue = b * 100 * svc + wait;
				p99 = b * cq * 100 * svc + wait;
			}
			double share = fmax(nr / SLACKGOV_LAT_RECENT_REQS,
					    win_us / (SLACKGOV_LAT_RECENT_MS * 1000.0));

			latq = latq ? latq + (p99 - latq) * fmin(share, 1) : p99;
			s->slack = rho >= 1 ? 0 : (__u32)((1 - rho) * 1000);
			s->util = (__u32)(fmin(rho, 1) * 1000);
			s->nr_req = (__u32)(arrived += nr);
			arrived -= s->nr_req;
			s->nr_lat = (__u32)(nr + 0.5);
			s->svc_us = (__u32)svc;
			s->queue_us = (__u32)fmin(queue, SLACKGOV_LAT_MAX_US);
			s->lat_win_us = (__u32)fmin(p99, SLACKGOV_LAT_MAX_US);
			s->lat_q_us = (__u32)fmin(latq, SLACKGOV_LAT_MAX_US);
			s->rps = rate[ph];
			/* over T: the tail beyond it, b times the model's */
			t = s->budget_us;
			if (t > 0)
				over += s->nr_lat * (t <= wait ? 1 : gap > 1 / (100 * svc) ?
						     exp(-gap * (t - wait) / b) : 1);
			s->nr_over = (__u32)fmin(over, s->nr_lat);
			over = t > 0 ? over - s->nr_over : 0;
			bpf_map_update_elem(bpf_map__fd(skel->maps.sample), &zero, s, BPF_ANY);
			syscall(SYS_getppid);
			printf("sample i=%d phase=%d rate=%ld khz=%ld slack=%u queue=%u lat=%u latq=%u over=%u budget=%u\n",
			       i, ph, rate[ph], khz, s->slack, s->queue_us, s->lat_win_us,
			       s->lat_q_us, s->nr_over, s->budget_us);
			/* the budget the next window's requests are counted against */
			bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &zero, &st);
			s->budget_us = st.last_ret > 0 ? st.last_ret : 0;
			usleep(interval * 1000);
		}
	}
}

int main(int argc, char **argv)
{
	struct slackgov_sample s = {
		.size = sizeof(s), .version = SLACKGOV_ABI_VERSION, .slack = 500, .cv = 1000,
	};
	struct sg_inject_stats st = {};
	long interval = 10, duration = 1000;
	bool cpus_given = false;
	long ph_load[MAX_PHASES], ph_ms[MAX_PHASES], fmax = 0;
	int nphases = 0, fcpu = 0;
	struct sg_inject_bpf *skel;
	double end;
	__u32 zero = 0;
	int opt, err;

	long mm_rate[MAX_PHASES], mm_ms[MAX_PHASES], bias = 100;
	int nmm = 0;

	while ((opt = getopt(argc, argv, "s:c:C:t:p:r:V:z:f:i:d:L:S:m:n:l:w:q:v:M:B:o:b:")) != -1) {
		switch (opt) {
		case 's': s.slack = strtoul(optarg, NULL, 10); break;
		case 'c': s.cv = strtoul(optarg, NULL, 10); break;
		case 'C':
			if (parse_cpus(optarg, &s)) {
				fprintf(stderr, "sginject: bad CPU list %s\n", optarg);
				return 2;
			}
			cpus_given = true;
			break;
		case 't': s.target = strtoul(optarg, NULL, 10); break;
		case 'p': s.setpoint = strtoul(optarg, NULL, 10); break;
		case 'r': s.rps = strtoul(optarg, NULL, 10); break;
		case 'V': s.version = strtoul(optarg, NULL, 10); break;
		case 'z': s.size = strtoul(optarg, NULL, 10); break;
		case 'f': s.flags = strtoul(optarg, NULL, 0); break;
		case 'i': interval = strtol(optarg, NULL, 10); break;
		case 'd': duration = strtol(optarg, NULL, 10); break;
		case 'S':
			s.slo_q = SLACKGOV_Q_DEFAULT;
			if (sscanf(optarg, "%u:%u", &s.slo_us, &s.slo_q) < 1) {
				fprintf(stderr, "sginject: bad SLO %s\n", optarg);
				return 2;
			}
			break;
		case 'm': s.slo_margin = strtoul(optarg, NULL, 0); break;
		case 'n': s.nr_lat = strtoul(optarg, NULL, 10); break;
		case 'l': s.lat_q_us = strtoul(optarg, NULL, 10); break;
		case 'w': s.lat_win_us = strtoul(optarg, NULL, 10); break;
		case 'q': s.queue_us = strtoul(optarg, NULL, 10); break;
		case 'v': s.svc_us = strtoul(optarg, NULL, 10); break;
		case 'o': s.nr_over = strtoul(optarg, NULL, 10); break;
		case 'b': s.budget_us = strtoul(optarg, NULL, 10); break;
		case 'B': bias = strtol(optarg, NULL, 10); break;
		case 'M':
			nmm = parse_phases(optarg, mm_rate, mm_ms);
			if (nmm <= 0) {
				fprintf(stderr, "sginject: bad rate list\n");
				return 2;
			}
			break;
		case 'L':
			nphases = parse_phases(optarg, ph_load, ph_ms);
			if (nphases <= 0) {
				fprintf(stderr, "sginject: bad phase list\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: sginject [-s SLACK] [-c CV] [-C CPUS] [-t TARGET] "
				"[-p SETPOINT] [-r RPS] [-V VER] [-z SIZE] [-f FLAGS] [-i MS] [-d MS]\n"
				"       [-L LOAD:MS,...] [-S SLO_US[:Q]] [-n NR] [-l LATQ] [-w LATWIN] [-q QUEUE]\n"
				"       [-v SVC] [-M RATE:MS,... [-B BIAS]]\n");
			return 2;
		}
	}
	if (!cpus_given)
		s.cpus[0] = 1;
	while (fcpu < SLACKGOV_MAX_CPUS - 1 && !(s.cpus[fcpu / 64] & (1ULL << (fcpu % 64))))
		fcpu++;
	if (nphases || nmm) {
		fmax = read_khz(fcpu, "cpuinfo_max_freq");
		if (fmax <= 0) {
			fprintf(stderr, "sginject: no cpufreq on cpu%d\n", fcpu);
			return 1;
		}
	}
	s.len_ns = interval * 1000000ULL;

	skel = sg_inject_bpf__open();
	if (!skel) {
		fprintf(stderr, "sginject: open failed: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->target_tgid = getpid();
	err = sg_inject_bpf__load(skel);
	if (!err)
		err = bpf_map_update_elem(bpf_map__fd(skel->maps.sample), &zero, &s, BPF_ANY);
	if (!err)
		err = sg_inject_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "sginject: load/attach failed: %s\n", strerror(errno));
		sg_inject_bpf__destroy(skel);
		return 1;
	}
	if (nmm) {
		run_queue(skel, &s, fcpu, fmax, interval, mm_rate, mm_ms, nmm, bias);
	} else if (nphases) {
		int ph, i = 0;

		for (ph = 0; ph < nphases; ph++) {
			for (end = now_ms() + ph_ms[ph]; now_ms() < end; i++) {
				long khz = read_khz(fcpu, "scaling_cur_freq");
				long slack = khz > 0 ? 1000 - ph_load[ph] * fmax / khz : 0;

				s.slack = slack < 0 ? 0 : slack > 1000 ? 1000 : slack;
				bpf_map_update_elem(bpf_map__fd(skel->maps.sample), &zero, &s, BPF_ANY);
				syscall(SYS_getppid);
				printf("sample i=%d phase=%d load=%ld khz=%ld slack=%u\n",
				       i, ph, ph_load[ph], khz, s.slack);
				usleep(interval * 1000);
			}
		}
	} else {
		end = now_ms() + duration;
		do {
			syscall(SYS_getppid);
			if (duration)
				usleep(interval * 1000);
		} while (now_ms() < end);
	}
	bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &zero, &st);
	printf("ok=%llu err=%llu last_ret=%d\n", (unsigned long long)st.nr_ok,
	       (unsigned long long)st.nr_err, st.last_ret);
	sg_inject_bpf__destroy(skel);
	return 0;
}
