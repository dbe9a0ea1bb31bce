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
 * Prints "ok=N err=N last_ret=N" at the end; exit 0 when the feed loaded.
 */
#include <errno.h>
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

	while ((opt = getopt(argc, argv, "s:c:C:t:p:r:V:z:f:i:d:L:")) != -1) {
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
		case 'L':
			nphases = parse_phases(optarg, ph_load, ph_ms);
			if (nphases <= 0) {
				fprintf(stderr, "sginject: bad phase list\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: sginject [-s SLACK] [-c CV] [-C CPUS] [-t TARGET] "
				"[-p SETPOINT] [-r RPS] [-V VER] [-z SIZE] [-f FLAGS] [-i MS] [-d MS]\n");
			return 2;
		}
	}
	if (!cpus_given)
		s.cpus[0] = 1;
	while (fcpu < SLACKGOV_MAX_CPUS - 1 && !(s.cpus[fcpu / 64] & (1ULL << (fcpu % 64))))
		fcpu++;
	if (nphases) {
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
	if (nphases) {
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
