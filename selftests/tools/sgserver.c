// SPDX-License-Identifier: GPL-2.0
/*
 * sgserver.c - the project's request/response test server: TCP on loopback,
 * a CPU-work service time, optionally a block off the CPU after it, three
 * threading shapes (epoll workers, one thread per connection, or a front
 * thread that reads and a pool that answers), the plain wire format or the
 * same message in RESP.
 *
 * Usage: sgserver [-p PORT] [-t THREADS] [-m epoll|thread|pool] [-s SERVICE_US]
 *                 [-b BLOCK_US [--block-how timer|pipe]] [--proto sgw|resp]
 *                 [--coalesce] [-w ITERS_PER_US] [-d SECONDS] [--calibrate]
 *
 * Prints "ready PORT" on stdout once listening; a summary on stderr at exit
 * (SIGTERM, SIGINT or after -d seconds).  See Documentation/workload.rst.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include "sgwire.h"

#define SGS_BACKLOG		1024	/* listen backlog: a burst of client connects */
#define SGS_MAX_THREADS		1024	/* -t limit, any mode */
#define SGS_THREAD_CONNS	256	/* -m thread default: simultaneous connections */
#define SGS_MAX_SERVICE_US	10000000u	/* 10 s: longer is a typo (-s and -b) */
#define SGS_EPOLL_EVENTS	64	/* events per epoll_wait: one batch of ready sockets */
/*
 * Per-connection buffers.  The read size is capped by the free space in the
 * write buffer, less the partial request already in the read buffer, so the
 * responses to whatever was read always fit (a response is never longer
 * than its request: SGW_MSG_SIZE each, or RESP's 53 and 39 bytes); a client
 * that stops reading stops being read (back pressure) instead of growing the
 * server's memory.
 */
#define SGS_RBUF		(16 * 1024)	/* 512 pipelined requests per read */
#define SGS_WBUF		(64 * 1024)
#define SGS_THREAD_STACK	(256 * 1024)	/* conn threads: small frames only */

static const char *sgs_prog = "sgserver";

enum { SGS_EPOLL, SGS_THREAD, SGS_POOL };
static const char *const sgs_mode_name[] = { "epoll", "thread", "pool" };

static struct sgs_opts {
	int port;
	int threads;
	int mode;			/* SGS_EPOLL, SGS_THREAD, SGS_POOL */
	unsigned int service_us;
	unsigned int block_us;		/* -b: off the CPU after the service */
	bool block_pipe;		/* --block-how pipe (else timer) */
	bool resp;			/* --proto resp */
	bool coalesce;			/* one write for the answers of one read */
	double iters_per_us;
	double duration_s;
} opt = { .port = 0, .threads = 0, .service_us = 0 };

static int stop_fd = -1;		/* eventfd: readable once stopping */
static volatile sig_atomic_t stopping;
static uint64_t svc_default_iters;
static size_t req_size = SGW_MSG_SIZE;	/* a request on the wire (--proto) */
static size_t ans_size = SGW_MSG_SIZE;	/* its answer: never longer */

/*
 * Checked between requests, so that a stop is not held up by a backlog of
 * pipelined requests (up to 512 per read, each SERVICE_US long).
 */
static bool sgs_stopping(void)
{
	return __atomic_load_n(&stopping, __ATOMIC_RELAXED);
}

/* ---- service ---------------------------------------------------------------- */

struct sgs_stats {
	uint64_t requests;
	uint64_t conns;
	uint64_t errors;	/* malformed requests, socket errors */
	uint64_t blocked_ns;	/* -b: time spent in the blocking calls, as measured */
};

static void sgs_stats_add(struct sgs_stats *to, const struct sgs_stats *from)
{
	to->requests += from->requests;
	to->conns += from->conns;
	to->errors += from->errors;
	to->blocked_ns += from->blocked_ns;
}

/*
 * -b with --block-how pipe: a thread that blocks writes its wake-up time on
 * a list and reads its own pipe; the helper thread (sgs-blocker) writes one
 * byte to that pipe when the time comes.  The request sleeps in a pipe
 * read, off the CPU, as one waiting on a backend does; the helper does no
 * socket I/O and never waits in poll or epoll.
 */
struct sgs_waiter {
	int rfd, wfd;		/* the thread's pipe */
	uint64_t due;		/* when to write it, CLOCK_MONOTONIC ns */
	struct sgs_waiter *next;	/* blk.waiting, under blk.lock */
};

static struct sgs_blk {
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* CLOCK_MONOTONIC: a waiter joined, or quit */
	struct sgs_waiter *waiting;
	bool quit;
	uint64_t late_ns;		/* the writes' lateness past their due times */
	pthread_t thread;
} blk = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread struct sgs_waiter *sgs_me;	/* this thread's, made at its first block */

static void *sgs_blk_main(void *arg)
{
	pthread_setname_np(pthread_self(), "sgs-blocker");
	pthread_mutex_lock(&blk.lock);
	while (!blk.quit) {
		struct sgs_waiter **pp = &blk.waiting;
		uint64_t now = sgw_now_ns(), next = 0;
		struct timespec ts;

		while (*pp) {
			struct sgs_waiter *w = *pp;
			char b = 0;

			if (w->due > now) {
				if (!next || w->due < next)
					next = w->due;
				pp = &w->next;
				continue;
			}
			*pp = w->next;
			/*
			 * Lateness up to the write, which makes the waiter runnable
			 * (after it, the waiter may preempt the helper): the helper's
			 * own wait for a CPU, which its waiter sleeps too.
			 */
			blk.late_ns += sgw_now_ns() - w->due;
			/* one byte in a pipe its reader empties: never full */
			if (write(w->wfd, &b, 1) != 1)
				perror("sgserver: blocker: write");
		}
		if (!next) {
			pthread_cond_wait(&blk.cond, &blk.lock);
			continue;
		}
		ts = sgw_ts(next);
		pthread_cond_timedwait(&blk.cond, &blk.lock, &ts);
	}
	pthread_mutex_unlock(&blk.lock);
	return NULL;
}

static int sgs_blk_start(void)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&blk.cond, &ca);
	pthread_condattr_destroy(&ca);
	return pthread_create(&blk.thread, NULL, sgs_blk_main, NULL) ? -1 : 0;
}

/* after every thread that blocks has ended */
static void sgs_blk_stop(void)
{
	pthread_mutex_lock(&blk.lock);
	blk.quit = true;
	pthread_cond_signal(&blk.cond);
	pthread_mutex_unlock(&blk.lock);
	pthread_join(blk.thread, NULL);
}

/* A serving thread ends: its pipe, if it made one, goes. */
static void sgs_block_exit(void)
{
	if (!sgs_me)
		return;
	close(sgs_me->rfd);
	close(sgs_me->wfd);
	free(sgs_me);
	sgs_me = NULL;
}

/*
 * sgs_block - -b: BLOCK_US off the CPU, after a request's service and before
 * its answer: time that does not shrink with the CPU's frequency (a backend,
 * a disk).  timer: one clock_nanosleep() to the absolute end (the process's
 * timer slack is 1 ns with -b); pipe: a read of the thread's pipe, which the
 * helper writes at the end.  What it took is added to @st.  False if the
 * thread's pipe cannot be made or read (the caller drops the connection).
 */
static bool sgs_block(struct sgs_stats *st)
{
	uint64_t t0 = sgw_now_ns(), due = t0 + opt.block_us * 1000ull;
	struct timespec ts = sgw_ts(due);
	int fds[2];
	ssize_t n;
	char b;

	if (!opt.block_us)
		return true;
	if (!opt.block_pipe) {
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		st->blocked_ns += sgw_now_ns() - t0;
		return true;
	}
	if (!sgs_me) {
		sgs_me = calloc(1, sizeof(*sgs_me));
		if (!sgs_me || pipe2(fds, O_CLOEXEC)) {
			free(sgs_me);
			sgs_me = NULL;
			return false;
		}
		sgs_me->rfd = fds[0];
		sgs_me->wfd = fds[1];
	}
	pthread_mutex_lock(&blk.lock);
	sgs_me->due = due;
	sgs_me->next = blk.waiting;
	blk.waiting = sgs_me;
	pthread_cond_signal(&blk.cond);
	pthread_mutex_unlock(&blk.lock);
	do
		n = read(sgs_me->rfd, &b, 1);
	while (n < 0 && errno == EINTR);
	st->blocked_ns += sgw_now_ns() - t0;
	return n == 1;
}

/* The request at @in (maybe unaligned, req_size bytes); false if malformed. */
static bool sgs_parse(const void *in, struct sgw_msg *req)
{
	if (opt.resp)
		return sgw_resp_unwrap(in, SGW_RESP_REQ_HEAD, sizeof(SGW_RESP_REQ_HEAD) - 1, req) &&
		       req->magic == SGW_REQ_MAGIC;
	memcpy(req, in, sizeof(*req));
	return req->magic == SGW_REQ_MAGIC;
}

/*
 * sgs_serve - turn one request (at @in, maybe unaligned) into its answer at
 * @out (ans_size bytes): the service's work, then -b's block.  Returns false
 * on a malformed request or a block that failed: the caller drops the
 * connection.
 */
static bool sgs_serve(const void *in, void *out, struct sgs_stats *st)
{
	struct sgw_msg req;
	uint64_t iters = svc_default_iters;
	uint32_t svc = opt.service_us;

	if (!sgs_parse(in, &req))
		return false;
	if (req.service_us != SGW_SVC_DEFAULT) {
		svc = req.service_us > SGS_MAX_SERVICE_US ? SGS_MAX_SERVICE_US : req.service_us;
		iters = (uint64_t)(svc * opt.iters_per_us);
	}
	sgw_spin(iters);
	if (!sgs_block(st))
		return false;
	req.magic = SGW_RESP_MAGIC;
	req.service_us = svc;
	if (opt.resp)
		sgw_resp_wrap(out, SGW_RESP_ANS_HEAD, sizeof(SGW_RESP_ANS_HEAD) - 1, &req);
	else
		memcpy(out, &req, sizeof(req));
	return true;
}

/* ---- epoll mode: acceptor + workers, each with its own epoll set ------------- */

struct sgs_worker;

struct sgs_conn {
	int fd;
	struct sgs_worker *w;
	struct sgs_conn *prev, *next;	/* the worker's list, under w->lock */
	uint32_t events;		/* current epoll interest */
	size_t rlen;			/* bytes of a partial request in rbuf */
	size_t woff, wlen;		/* unsent responses: wbuf[woff, wlen) */
	char rbuf[SGS_RBUF];
	char wbuf[SGS_WBUF];
};

struct sgs_worker {
	int id;
	int epfd;
	pthread_t thread;
	pthread_mutex_t lock;		/* conns list: acceptor adds, worker removes */
	struct sgs_conn *conns;
	struct sgs_stats st;		/* written by the worker only */
};

static void sgs_conn_close(struct sgs_conn *c)
{
	struct sgs_worker *w = c->w;

	epoll_ctl(w->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	pthread_mutex_lock(&w->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		w->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&w->lock);
	free(c);
}

static int sgs_conn_interest(struct sgs_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	if (c->events == events)
		return 0;
	c->events = events;
	return epoll_ctl(c->w->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Send buffered responses; 0 when all sent or the socket is full, -1 on error. */
static int sgs_conn_flush(struct sgs_conn *c)
{
	while (c->woff < c->wlen) {
		struct iovec iov = { c->wbuf + c->woff, c->wlen - c->woff };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
		c->woff += n;
	}
	c->woff = c->wlen = 0;
	return 0;
}

/*
 * Answer one request: one sendmsg() per response (so the send family counts
 * requests, not batches), unless earlier responses still wait in wbuf, in
 * which case the response queues behind them to keep the order.
 * --coalesce: every answer queues, and the read's end sends them at once.
 */
static int sgs_conn_reply(struct sgs_conn *c, const void *resp)
{
	if (c->wlen == 0 && !opt.coalesce) {
		struct iovec iov = { (void *)resp, ans_size };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		do
			n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
		if (n == (ssize_t)ans_size)
			return 0;
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return -1;
			n = 0;
		}
		memcpy(c->wbuf, (const char *)resp + n, ans_size - n);
		c->wlen = ans_size - n;
		return 0;
	}
	/* fits: reads are capped by the free space of wbuf */
	memcpy(c->wbuf + c->wlen, resp, ans_size);
	c->wlen += ans_size;
	return 0;
}

static int sgs_conn_readable(struct sgs_conn *c)
{
	size_t room, wroom, pos = 0;
	ssize_t n;

	if (c->woff && c->woff == c->wlen)
		c->woff = c->wlen = 0;
	if (c->woff) {	/* compact so the free space is at the end */
		memmove(c->wbuf, c->wbuf + c->woff, c->wlen - c->woff);
		c->wlen -= c->woff;
		c->woff = 0;
	}
	/*
	 * The answers to the requests this read completes are at most as long
	 * as those requests, rlen + n bytes: both must fit in wbuf (without the
	 * rlen, a torn request's bytes could overrun it by up to a request).
	 */
	room = SGS_RBUF - c->rlen;
	wroom = SGS_WBUF - c->wlen > c->rlen ? SGS_WBUF - c->wlen - c->rlen : 0;
	if (room > wroom)
		room = wroom;
	if (room < req_size)	/* wait for the client to read its responses */
		return sgs_conn_interest(c, EPOLLOUT);

	n = read(c->fd, c->rbuf + c->rlen, room);
	if (n == 0)
		return -1;
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
	c->rlen += n;

	while (c->rlen - pos >= req_size && !sgs_stopping()) {
		char resp[SGW_MAX_SIZE];

		if (!sgs_serve(c->rbuf + pos, resp, &c->w->st)) {
			c->w->st.errors++;
			sgs_conn_flush(c);	/* --coalesce: the answers before it */
			return -1;
		}
		if (sgs_conn_reply(c, resp))
			return -1;
		c->w->st.requests++;
		pos += req_size;
	}
	c->rlen -= pos;
	memmove(c->rbuf, c->rbuf + pos, c->rlen);
	if (opt.coalesce && sgs_conn_flush(c))	/* one write for the read's answers */
		return -1;
	return sgs_conn_interest(c, c->wlen ? EPOLLIN | EPOLLOUT : EPOLLIN);
}

static void *sgs_worker_main(void *arg)
{
	struct sgs_worker *w = arg;
	struct epoll_event ev[SGS_EPOLL_EVENTS];
	char name[16];

	snprintf(name, sizeof(name), "sgs-worker-%d", w->id);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		int n = epoll_wait(w->epfd, ev, SGS_EPOLL_EVENTS, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("sgserver: epoll_wait");
			break;
		}
		for (int i = 0; i < n; i++) {
			struct sgs_conn *c = ev[i].data.ptr;
			int err = 0;

			if (!c || sgs_stopping())	/* stop_fd */
				goto out;
			if (ev[i].events & EPOLLOUT) {
				err = sgs_conn_flush(c);
				if (!err && c->wlen == 0)
					err = sgs_conn_interest(c, EPOLLIN);
			}
			if (!err && ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
				err = sgs_conn_readable(c);
			if (err)
				sgs_conn_close(c);
		}
	}
out:
	sgs_block_exit();
	return NULL;
}

/* ---- thread mode: one thread per connection, blocking I/O --------------------- */

struct sgs_cthread {
	int fd;
	pthread_t thread;
	bool done;			/* __atomic: set by the thread as it ends */
	struct sgs_cthread *next;
	struct sgs_stats st;
};

static int sgs_send_all(int fd, const void *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf = (const char *)buf + n;
		len -= n;
	}
	return 0;
}

static void *sgs_cthread_main(void *arg)
{
	struct sgs_cthread *t = arg;
	char buf[SGS_RBUF], out[SGS_RBUF];	/* --coalesce: a read's answers */
	size_t len = 0;

	pthread_setname_np(pthread_self(), "sgs-conn");
	for (;;) {
		struct pollfd pfd[2] = { { t->fd, POLLIN, 0 }, { stop_fd, POLLIN, 0 } };
		size_t pos = 0, olen = 0;
		ssize_t n;

		/* poll() first, so the wait family sees this shape block too */
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		n = recv(t->fd, buf + len, sizeof(buf) - len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
		for (; len - pos >= req_size && !sgs_stopping(); pos += req_size) {
			char *resp = out + olen;

			if (!sgs_serve(buf + pos, resp, &t->st)) {
				t->st.errors++;
				/* --coalesce: the answers before it */
				sgs_send_all(t->fd, out, olen);
				goto out;
			}
			if (opt.coalesce) {
				olen += ans_size;	/* answers are no longer than requests */
			} else if (sgs_send_all(t->fd, resp, ans_size)) {
				goto out;
			}
			t->st.requests++;
		}
		if (olen && sgs_send_all(t->fd, out, olen))
			goto out;
		len -= pos;
		memmove(buf, buf + pos, len);
	}
out:
	sgs_block_exit();
	__atomic_store_n(&t->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- pool mode: a front thread reads, a pool of workers answers ------------------ */

/*
 * The front thread (sgs-front) waits in epoll_wait() on every connection,
 * reads, and queues the complete requests on their connection; a connection
 * with requests queued is on the ready list once, and one worker at a time
 * (sgs-pool-N, waiting on pool.cond) takes all its queued requests, serves
 * them and answers them on the connection itself: a request is read by one
 * thread and answered by another, in order per connection.  A connection is
 * freed by whichever side finds it done with both: the front thread no
 * longer polls it (eof) and no worker holds it (!busy).
 */
struct sgs_pconn {
	int fd;
	bool busy;			/* on the ready list or held by a worker */
	bool eof;			/* the front thread is done with it */
	bool dead;			/* an answer failed: its requests are dropped */
	bool paused;			/* queue full: out of the front's epoll interest */
	struct sgs_pconn *ready;	/* next on the ready list */
	struct sgs_pconn *prev, *next;	/* pool.conns */
	size_t rlen;			/* front thread's: a partial request in rbuf */
	size_t qlen;			/* requests queued for the pool in q */
	char rbuf[SGS_RBUF];
	char q[SGS_RBUF];
};

static struct sgs_pool {
	pthread_mutex_t lock;		/* every field here and of each connection
					 * but rlen and rbuf (the front thread's) */
	pthread_cond_t cond;		/* a connection is ready, or quit */
	struct sgs_pconn *ready_head, *ready_tail;
	struct sgs_pconn *conns;	/* all, for the teardown */
	int epfd;			/* the front thread's */
	bool quit;
	struct sgs_stats st;		/* the front thread's: malformed requests */
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

struct sgs_pworker {
	int id;
	pthread_t thread;
	struct sgs_stats st;
};

/* under pool.lock */
static void sgs_pool_free(struct sgs_pconn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		pool.conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	close(c->fd);
	free(c);
}

/* under pool.lock: @c has requests queued and no worker; hand it to one */
static void sgs_pool_ready(struct sgs_pconn *c)
{
	c->busy = true;
	c->ready = NULL;
	if (pool.ready_tail)
		pool.ready_tail->ready = c;
	else
		pool.ready_head = c;
	pool.ready_tail = c;
	pthread_cond_signal(&pool.cond);
}

/* The front thread is done with @c (end of file, error, malformed request). */
static void sgs_pool_front_close(struct sgs_pconn *c)
{
	pthread_mutex_lock(&pool.lock);
	epoll_ctl(pool.epfd, EPOLL_CTL_DEL, c->fd, NULL);
	c->eof = true;
	if (!c->busy)		/* else the worker answers what is queued, then frees */
		sgs_pool_free(c);
	pthread_mutex_unlock(&pool.lock);
}

/* Front thread: read @c, queue its complete requests.  -1: done with it. */
static int sgs_pool_readable(struct sgs_pconn *c, uint32_t events)
{
	size_t room, done = 0;
	bool bad = false;
	ssize_t n;

	pthread_mutex_lock(&pool.lock);
	if (c->dead) {
		pthread_mutex_unlock(&pool.lock);
		return -1;
	}
	/* the queue only shrinks meanwhile: room can only grow */
	room = SGS_RBUF - c->qlen > c->rlen ? SGS_RBUF - c->qlen - c->rlen : 0;
	if (room < req_size && !(events & (EPOLLHUP | EPOLLERR))) {
		/* full: not read until a worker takes the queue (it resumes it) */
		struct epoll_event ev = { .events = 0, .data.ptr = c };

		c->paused = true;
		epoll_ctl(pool.epfd, EPOLL_CTL_MOD, c->fd, &ev);
	}
	pthread_mutex_unlock(&pool.lock);
	if (room < req_size)
		return events & (EPOLLHUP | EPOLLERR) ? -1 : 0;

	n = read(c->fd, c->rbuf + c->rlen, room);
	if (n == 0)
		return -1;
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
	c->rlen += n;
	for (; c->rlen - done >= req_size; done += req_size) {
		struct sgw_msg req;

		if (!sgs_parse(c->rbuf + done, &req)) {
			pool.st.errors++;
			bad = true;
			break;
		}
	}
	if (done) {
		pthread_mutex_lock(&pool.lock);
		memcpy(c->q + c->qlen, c->rbuf, done);
		c->qlen += done;
		if (!c->busy)
			sgs_pool_ready(c);
		pthread_mutex_unlock(&pool.lock);
		c->rlen -= done;
		memmove(c->rbuf, c->rbuf + done, c->rlen);
	}
	return bad ? -1 : 0;
}

static void *sgs_front_main(void *arg)
{
	struct epoll_event ev[SGS_EPOLL_EVENTS];

	pthread_setname_np(pthread_self(), "sgs-front");
	for (;;) {
		int n = epoll_wait(pool.epfd, ev, SGS_EPOLL_EVENTS, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("sgserver: epoll_wait");
			break;
		}
		for (int i = 0; i < n; i++) {
			struct sgs_pconn *c = ev[i].data.ptr;

			if (!c || sgs_stopping())	/* stop_fd */
				return NULL;
			if (sgs_pool_readable(c, ev[i].events))
				sgs_pool_front_close(c);
		}
	}
	return NULL;
}

/* Worker: all of @buf's @len bytes to @c's socket, waiting for room if need be. */
static int sgs_pool_send(struct sgs_pconn *c, const char *buf, size_t len)
{
	while (len) {
		struct iovec iov = { (void *)buf, len };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		struct pollfd pfd[2] = { { c->fd, POLLOUT, 0 }, { stop_fd, POLLIN, 0 } };
		ssize_t n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);

		if (n >= 0) {
			buf += n;
			len -= n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		/* the client is not reading: wait for it (this connection only) */
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return -1;
		if (pfd[1].revents)
			return -1;
	}
	return 0;
}

/*
 * Worker: serve the @len bytes of requests taken from @c, in order; one
 * sendmsg() per answer, or one for them all with --coalesce.  -1 when an
 * answer could not be sent.
 */
static int sgs_pool_serve(struct sgs_pworker *w, struct sgs_pconn *c, const char *in,
			  size_t len, char *out)
{
	size_t pos, olen = 0, n = 0;

	for (pos = 0; pos + req_size <= len && !sgs_stopping(); pos += req_size) {
		char *resp = out + olen;

		if (!sgs_serve(in + pos, resp, &w->st)) {	/* parsed: only a block fails */
			w->st.errors++;
			return -1;
		}
		if (opt.coalesce) {
			olen += ans_size;
			n++;
			continue;
		}
		if (sgs_pool_send(c, resp, ans_size))
			return -1;
		w->st.requests++;
	}
	if (olen && sgs_pool_send(c, out, olen))
		return -1;
	w->st.requests += n;
	return 0;
}

static void *sgs_pworker_main(void *arg)
{
	struct sgs_pworker *w = arg;
	char name[16], *in = malloc(SGS_RBUF), *out = malloc(SGS_RBUF);

	snprintf(name, sizeof(name), "sgs-pool-%d", w->id);
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&pool.lock);
	while (in && out) {
		struct sgs_pconn *c;
		size_t len;
		int err;

		while (!pool.ready_head && !pool.quit)
			pthread_cond_wait(&pool.cond, &pool.lock);
		if (pool.quit)
			break;
		c = pool.ready_head;
		pool.ready_head = c->ready;
		if (!pool.ready_head)
			pool.ready_tail = NULL;
		len = c->qlen;
		memcpy(in, c->q, len);
		c->qlen = 0;
		if (c->paused && !c->eof) {	/* room again: the front reads it again */
			struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

			c->paused = false;
			epoll_ctl(pool.epfd, EPOLL_CTL_MOD, c->fd, &ev);
		}
		pthread_mutex_unlock(&pool.lock);

		err = sgs_pool_serve(w, c, in, len, out);

		pthread_mutex_lock(&pool.lock);
		if (err)
			c->dead = true;
		if (c->qlen && !c->dead) {
			sgs_pool_ready(c);	/* more came meanwhile: to the back of the list */
			continue;
		}
		c->busy = false;
		c->qlen = 0;
		if (c->eof)
			sgs_pool_free(c);
		else if (c->dead)	/* the front thread sees it hang up, and frees it */
			shutdown(c->fd, SHUT_RDWR);
	}
	pthread_mutex_unlock(&pool.lock);
	free(in);
	free(out);
	sgs_block_exit();
	return NULL;
}

/* ---- common: listen, accept, stop ---------------------------------------------- */

static void sgs_on_signal(int sig)
{
	uint64_t one = 1;
	ssize_t r;

	stopping = 1;
	r = write(stop_fd, &one, sizeof(one));	/* async-signal-safe */
	(void)r;
}

static int sgs_listen(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(*port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int one = 1, fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, SGS_BACKLOG) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		close(fd);
		return -1;
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

/*
 * Wait for a connection, a stop request or the -d deadline.  Returns the new
 * socket, or -1 to stop.
 */
static int sgs_accept(int lfd, uint64_t deadline, struct sgs_stats *st)
{
	while (!stopping) {
		struct pollfd pfd[2] = { { lfd, POLLIN, 0 }, { stop_fd, POLLIN, 0 } };
		int timeout = -1, one = 1, fd;

		if (deadline) {
			uint64_t now = sgw_now_ns();

			if (now >= deadline)
				return -1;
			timeout = (deadline - now + 999999) / 1000000;
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			return -1;
		if (pfd[1].revents)
			return -1;
		if (!(pfd[0].revents & POLLIN))
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				usleep(10000);	/* out of resources: do not spin on it */
			if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
				st->errors++;
			continue;
		}
		/* small messages: no Nagle, or each response waits for an ACK */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		st->conns++;
		return fd;
	}
	return -1;
}

static int sgs_run_epoll(int lfd, uint64_t deadline, struct sgs_stats *total)
{
	struct sgs_worker *w;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct sgs_stats acc = { 0 };
	int i, fd, next = 0, started = 0, ret = -1;

	w = calloc(opt.threads, sizeof(*w));
	if (!w)
		return -1;
	for (i = 0; i < opt.threads; i++) {
		w[i].id = i;
		pthread_mutex_init(&w[i].lock, NULL);
		w[i].epfd = epoll_create1(EPOLL_CLOEXEC);
		if (w[i].epfd < 0 || epoll_ctl(w[i].epfd, EPOLL_CTL_ADD, stop_fd, &ev))
			goto err_workers;
		if (pthread_create(&w[i].thread, NULL, sgs_worker_main, &w[i]))
			goto err_workers;
		started++;
	}
	printf("ready %d\n", opt.port);
	fflush(stdout);

	while ((fd = sgs_accept(lfd, deadline, &acc)) >= 0) {
		struct sgs_conn *c = malloc(sizeof(*c));
		struct sgs_worker *to = &w[next];

		next = (next + 1) % opt.threads;
		if (!c || fcntl(fd, F_SETFL, O_NONBLOCK)) {
			free(c);
			close(fd);
			acc.errors++;
			continue;
		}
		c->fd = fd;
		c->w = to;
		c->events = EPOLLIN;
		c->rlen = c->woff = c->wlen = 0;
		c->prev = NULL;
		pthread_mutex_lock(&to->lock);
		c->next = to->conns;
		if (to->conns)
			to->conns->prev = c;
		to->conns = c;
		pthread_mutex_unlock(&to->lock);
		/* epoll_ctl is safe against the worker's concurrent epoll_wait */
		ev.events = EPOLLIN;
		ev.data.ptr = c;
		if (epoll_ctl(to->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			acc.errors++;
			sgs_conn_close(c);
		}
	}
	ret = 0;

err_workers:
	sgs_on_signal(0);	/* wakes every worker through stop_fd */
	for (i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	for (i = 0; i < opt.threads; i++) {
		while (w[i].conns)
			sgs_conn_close(w[i].conns);
		if (w[i].epfd >= 0)
			close(w[i].epfd);
		sgs_stats_add(total, &w[i].st);
	}
	sgs_stats_add(total, &acc);
	free(w);
	return ret;
}

static void sgs_reap(struct sgs_cthread **list, struct sgs_stats *total, bool all, int *live)
{
	struct sgs_cthread **pp = list;

	while (*pp) {
		struct sgs_cthread *t = *pp;

		if (!all && !__atomic_load_n(&t->done, __ATOMIC_ACQUIRE)) {
			pp = &t->next;
			continue;
		}
		pthread_join(t->thread, NULL);
		close(t->fd);
		sgs_stats_add(total, &t->st);
		*pp = t->next;
		free(t);
		(*live)--;
	}
}

static int sgs_run_threads(int lfd, uint64_t deadline, struct sgs_stats *total)
{
	struct sgs_cthread *list = NULL;
	struct sgs_stats acc = { 0 };
	pthread_attr_t attr;
	int fd, live = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, SGS_THREAD_STACK);
	printf("ready %d\n", opt.port);
	fflush(stdout);

	while ((fd = sgs_accept(lfd, deadline, &acc)) >= 0) {
		struct sgs_cthread *t;

		sgs_reap(&list, total, false, &live);
		t = live < opt.threads ? calloc(1, sizeof(*t)) : NULL;
		if (!t) {
			if (!acc.errors)	/* once: the summary has the count */
				fprintf(stderr, "%s: refusing connections: %d threads busy\n",
					sgs_prog, live);
			close(fd);
			acc.errors++;
			continue;
		}
		t->fd = fd;
		if (pthread_create(&t->thread, &attr, sgs_cthread_main, t)) {
			close(fd);
			free(t);
			acc.errors++;
			continue;
		}
		t->next = list;
		list = t;
		live++;
	}
	sgs_on_signal(0);
	/* unblock threads stuck in send() to a client that stopped reading */
	for (struct sgs_cthread *t = list; t; t = t->next)
		shutdown(t->fd, SHUT_RDWR);
	sgs_reap(&list, total, true, &live);
	sgs_stats_add(total, &acc);
	pthread_attr_destroy(&attr);
	return 0;
}

static int sgs_run_pool(int lfd, uint64_t deadline, struct sgs_stats *total)
{
	struct sgs_pworker *w;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct sgs_stats acc = { 0 };
	pthread_t front;
	bool front_started = false;
	int i, fd, started = 0, ret = -1;

	w = calloc(opt.threads, sizeof(*w));
	if (!w)
		return -1;
	pool.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (pool.epfd < 0 || epoll_ctl(pool.epfd, EPOLL_CTL_ADD, stop_fd, &ev))
		goto out;
	for (i = 0; i < opt.threads; i++) {
		w[i].id = i;
		if (pthread_create(&w[i].thread, NULL, sgs_pworker_main, &w[i]))
			goto out;
		started++;
	}
	if (pthread_create(&front, NULL, sgs_front_main, NULL))
		goto out;
	front_started = true;
	printf("ready %d\n", opt.port);
	fflush(stdout);

	while ((fd = sgs_accept(lfd, deadline, &acc)) >= 0) {
		struct sgs_pconn *c = calloc(1, sizeof(*c));

		if (!c || fcntl(fd, F_SETFL, O_NONBLOCK)) {
			free(c);
			close(fd);
			acc.errors++;
			continue;
		}
		c->fd = fd;
		pthread_mutex_lock(&pool.lock);
		c->next = pool.conns;
		if (pool.conns)
			pool.conns->prev = c;
		pool.conns = c;
		/* epoll_ctl is safe against the front thread's concurrent epoll_wait */
		ev.events = EPOLLIN;
		ev.data.ptr = c;
		if (epoll_ctl(pool.epfd, EPOLL_CTL_ADD, fd, &ev)) {
			acc.errors++;
			sgs_pool_free(c);
		}
		pthread_mutex_unlock(&pool.lock);
	}
	ret = 0;

out:
	sgs_on_signal(0);	/* the front thread leaves through stop_fd */
	if (front_started)
		pthread_join(front, NULL);
	pthread_mutex_lock(&pool.lock);
	pool.quit = true;
	pthread_cond_broadcast(&pool.cond);
	pthread_mutex_unlock(&pool.lock);
	for (i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	while (pool.conns)
		sgs_pool_free(pool.conns);
	if (pool.epfd >= 0)
		close(pool.epfd);
	for (i = 0; i < opt.threads; i++)
		sgs_stats_add(total, &w[i].st);
	sgs_stats_add(total, &pool.st);
	sgs_stats_add(total, &acc);
	free(w);
	return ret;
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-p PORT] [-t THREADS] [-m epoll|thread|pool] [-s SERVICE_US]\n"
		"          [-b BLOCK_US [--block-how timer|pipe]] [--proto sgw|resp] [--coalesce]\n"
		"          [-w ITERS_PER_US] [-d SECONDS] [--calibrate]\n"
		"  -p PORT        TCP port on 127.0.0.1 (default 0: any free port)\n"
		"  -t THREADS     epoll: worker threads (default: online CPUs);\n"
		"                 thread: most simultaneous connections (default %d);\n"
		"                 pool: worker threads of the pool (default: online CPUs)\n"
		"  -m MODE        epoll (acceptor + epoll workers, default), thread (one\n"
		"                 blocking thread per connection) or pool (a front thread\n"
		"                 reads every connection, a pool of workers answers)\n"
		"  -s SERVICE_US  CPU work per request, in microseconds at calibration speed\n"
		"  -b BLOCK_US    then block this long off the CPU before answering\n"
		"  --block-how H  timer (clock_nanosleep, default) or pipe (a read of a pipe\n"
		"                 that a helper thread writes when the time is up)\n"
		"  --proto P      sgw (32-byte messages, default) or resp (the same message\n"
		"                 echoed in RESP: 'ECHO <msg>' answered '$32 <msg>')\n"
		"  --coalesce     answer all the requests of one read with one write (as redis\n"
		"                 does), not one sendmsg() per request\n"
		"  -w ITERS       spin iterations per microsecond (from --calibrate)\n"
		"  -d SECONDS     exit after this long (default: on SIGTERM/SIGINT)\n"
		"  --calibrate    print 'iters_per_us N' and exit\n",
		sgs_prog, SGS_THREAD_CONNS);
}

static int bad_arg(const char *what, const char *val)
{
	fprintf(stderr, "%s: error: invalid %s '%s'\n", sgs_prog, what, val);
	usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "calibrate", no_argument, NULL, 'C' },
		{ "block-how", required_argument, NULL, 'B' },
		{ "proto", required_argument, NULL, 'P' },
		{ "coalesce", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct sigaction sa = { .sa_handler = sgs_on_signal };
	struct sgs_stats st = { 0 };
	struct rusage ru;
	uint64_t t0, deadline = 0;
	unsigned long v;
	int c, lfd, err;

	while ((c = getopt_long(argc, argv, "p:t:m:s:b:w:d:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (sgw_parse_ulong(optarg, 0, 65535, &v))
				return bad_arg("port", optarg);
			opt.port = v;
			break;
		case 't':
			if (sgw_parse_ulong(optarg, 1, SGS_MAX_THREADS, &v))
				return bad_arg("thread count", optarg);
			opt.threads = v;
			break;
		case 'm':
			for (opt.mode = SGS_POOL; opt.mode >= 0; opt.mode--)
				if (!strcmp(optarg, sgs_mode_name[opt.mode]))
					break;
			if (opt.mode < 0)
				return bad_arg("mode", optarg);
			break;
		case 's':
			if (sgw_parse_ulong(optarg, 0, SGS_MAX_SERVICE_US, &v))
				return bad_arg("service time", optarg);
			opt.service_us = v;
			break;
		case 'b':
			if (sgw_parse_ulong(optarg, 0, SGS_MAX_SERVICE_US, &v))
				return bad_arg("block time", optarg);
			opt.block_us = v;
			break;
		case 'B':
			if (strcmp(optarg, "timer") && strcmp(optarg, "pipe"))
				return bad_arg("--block-how (timer or pipe)", optarg);
			opt.block_pipe = !strcmp(optarg, "pipe");
			break;
		case 'P':
			if (strcmp(optarg, "sgw") && strcmp(optarg, "resp"))
				return bad_arg("--proto (sgw or resp)", optarg);
			opt.resp = !strcmp(optarg, "resp");
			break;
		case 'A':
			opt.coalesce = true;
			break;
		case 'w':
			if (sgw_parse_double(optarg, 0.001, 1e9, &opt.iters_per_us))
				return bad_arg("iterations per microsecond", optarg);
			break;
		case 'd':
			if (sgw_parse_double(optarg, 0.001, 1e7, &opt.duration_s))
				return bad_arg("duration", optarg);
			break;
		case 'C':
			printf("iters_per_us %.0f\n", fmax(1.0, round(sgw_calibrate())));
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		return bad_arg("argument", argv[optind]);
	if (!opt.threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		opt.threads = opt.mode == SGS_THREAD ? SGS_THREAD_CONNS : (n > 0 ? n : 1);
	}
	if (opt.resp) {
		req_size = SGW_RESP_REQ_SIZE;
		ans_size = SGW_RESP_ANS_SIZE;
	}
	if (!opt.iters_per_us) {
		opt.iters_per_us = fmax(1.0, round(sgw_calibrate()));
		fprintf(stderr, "%s: iters_per_us %.0f\n", sgs_prog, opt.iters_per_us);
	}
	svc_default_iters = (uint64_t)(opt.service_us * opt.iters_per_us);

	sgw_raise_nofile();
	stop_fd = eventfd(0, EFD_CLOEXEC);
	if (stop_fd < 0) {
		perror("sgserver: eventfd");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (opt.block_us) {
		/* wake at the block's end, not 50 us later (threads inherit it) */
		prctl(PR_SET_TIMERSLACK, 1);
		if (opt.block_pipe && sgs_blk_start()) {
			fprintf(stderr, "%s: error: cannot start the blocker thread\n", sgs_prog);
			return 1;
		}
	}

	lfd = sgs_listen(&opt.port);
	if (lfd < 0) {
		fprintf(stderr, "%s: error: cannot listen on 127.0.0.1:%d: %s\n", sgs_prog,
			opt.port, strerror(errno));
		return 1;
	}
	t0 = sgw_now_ns();
	if (opt.duration_s)
		deadline = t0 + (uint64_t)(opt.duration_s * 1e9);
	err = opt.mode == SGS_THREAD ? sgs_run_threads(lfd, deadline, &st) :
	      opt.mode == SGS_POOL ? sgs_run_pool(lfd, deadline, &st) :
	      sgs_run_epoll(lfd, deadline, &st);
	close(lfd);
	if (opt.block_us && opt.block_pipe)
		sgs_blk_stop();
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "%s: mode=%s threads=%d service_us=%u block_us=%u block_how=%s proto=%s "
		"coalesce=%d iters_per_us=%.0f conns=%llu requests=%llu errors=%llu elapsed_s=%.3f "
		"cpu_s=%.3f blocked_s=%.3f late_s=%.3f\n", sgs_prog,
		sgs_mode_name[opt.mode], opt.threads, opt.service_us, opt.block_us,
		opt.block_pipe ? "pipe" : "timer", opt.resp ? "resp" : "sgw", opt.coalesce,
		opt.iters_per_us, (unsigned long long)st.conns,
		(unsigned long long)st.requests, (unsigned long long)st.errors,
		(sgw_now_ns() - t0) / 1e9,
		ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
		st.blocked_ns / 1e9, blk.late_ns / 1e9);
	if (err)
		fprintf(stderr, "%s: error: cannot start the workers\n", sgs_prog);
	return err ? 1 : 0;
}
