// SPDX-License-Identifier: GPL-2.0
/*
 * sgwin.c - print one target slot of the pinned windows map as name=value
 * lines, for shell tests that have no JSON parser (the busybox guest).
 *
 * Usage: sgwin [-s SLOT] [-a]
 *   -s  target slot (default 0)
 *   -a  also every window of the history ring, oldest first
 * Output:
 *   now_ns=N head=N total_send=N total_ns=N      (now: CLOCK_MONOTONIC, the
 *                                                 clock of the windows' times)
 *   last seq=N start_ns=N end_ns=N len_ns=N flags=N rps=N slack=N cv=N ...
 *   hist seq=N ...                               (with -a)
 * Exit: 0, 1 when the map cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "slackgov.h"

static void print_window(const char *tag, const struct slackgov_window *w)
{
	printf("%s seq=%llu start_ns=%llu end_ns=%llu len_ns=%llu flags=%u rps=%u slack=%u cv=%u "
	       "util=%u nr_send=%u nr_recv=%u nr_wait=%u nr_threads=%u report_ret=%d "
	       "send_mean_ns=%llu send_var_us2=%llu recv_mean_ns=%llu recv_var_us2=%llu "
	       "wait_mean_ns=%llu blocked_ns=%llu busy_ns=%llu oncpu_ns=%llu cpus0=%llu\n",
	       tag, (unsigned long long)w->seq, (unsigned long long)w->start_ns,
	       (unsigned long long)w->end_ns,
	       (unsigned long long)(w->end_ns > w->start_ns ? w->end_ns - w->start_ns : 0),
	       w->flags, w->rps, w->slack, w->cv, w->util, w->nr_send, w->nr_recv, w->nr_wait,
	       w->nr_threads, w->report_ret, (unsigned long long)w->send_mean_ns,
	       (unsigned long long)w->send_var_us2, (unsigned long long)w->recv_mean_ns,
	       (unsigned long long)w->recv_var_us2, (unsigned long long)w->wait_mean_ns,
	       (unsigned long long)w->blocked_ns, (unsigned long long)w->busy_ns,
	       (unsigned long long)w->oncpu_ns, (unsigned long long)w->cpus[0]);
}

int main(int argc, char **argv)
{
	struct slackgov_target_state *st;
	struct timespec ts;
	int slot = 0, all = 0, fd, opt;
	__u32 key;
	__u64 i, n;

	while ((opt = getopt(argc, argv, "s:a")) != -1) {
		switch (opt) {
		case 's': slot = atoi(optarg); break;
		case 'a': all = 1; break;
		default:
			fprintf(stderr, "usage: sgwin [-s SLOT] [-a]\n");
			return 2;
		}
	}
	if (slot < 0 || slot >= SLACKGOV_MAX_TARGETS) {
		fprintf(stderr, "sgwin: error: slot out of range\n");
		return 2;
	}
	st = calloc(1, sizeof(*st));
	fd = bpf_obj_get(SLACKGOV_PIN_DIR "/windows");
	key = slot;
	if (!st || fd < 0 || bpf_map_lookup_elem(fd, &key, st)) {
		perror("sgwin: windows map");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("now_ns=%llu head=%llu total_send=%llu total_ns=%llu\n",
	       (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec,
	       (unsigned long long)st->head, (unsigned long long)st->total_send,
	       (unsigned long long)st->total_ns);
	print_window("last", &st->last);
	if (all) {
		n = st->head < SLACKGOV_HISTORY ? st->head : SLACKGOV_HISTORY;
		for (i = st->head - n; i < st->head; i++)
			print_window("hist", &st->hist[i % SLACKGOV_HISTORY]);
	}
	free(st);
	return 0;
}
