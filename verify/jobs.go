package verify

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"evidenceledger/evidence"
)

// CheckStore is what checking a batch needs from the ledger. *ledger.Store implements it.
type CheckStore interface {
	// CitationsToCheck returns the citations of the batch to check, in a stable order: those
	// never checked yet, or every citation of the batch when recheck is true. Citations that
	// cannot be checked (no URL, no quote) are included; the checker halts them without a
	// fetch. The error must wrap ErrNoBatch when the batch does not exist.
	CitationsToCheck(ctx context.Context, batch string, recheck bool) ([]evidence.CheckTarget, error)
	// RecordCheck commits, in one transaction, the citation.checked event with the page body
	// and the heads of the final request and response (each stored by its SHA-256) and, when seam is not nil, the seam.opened event.
	RecordCheck(ctx context.Context, actor string, checked evidence.Checked, body, reqHead, respHead []byte, seam *evidence.SeamOpened) error
}

// ErrNoBatch is wrapped by CheckStore.CitationsToCheck, and so by RunBatch and Jobs.Start,
// when the batch does not exist. It is evidence.ErrNoBatch, so that a store can wrap it
// without importing this package.
var ErrNoBatch = evidence.ErrNoBatch

// DefaultWorkers is how many citations a batch check works on at once.
const DefaultWorkers = 4

// RunBatch checks the citations of a batch that CitationsToCheck returns in one [Run],
// workers at a time (DefaultWorkers when workers < 1), and records each check as it
// completes: the fetches happen first, then one short RecordCheck per citation, so no write
// is held open while fetching. progress, when not nil, is called with the number done after
// each citation.
//
// The citations of one URL are checked together, by one worker, against the run's one
// capture of the page per verifier; after the last of them the capture is released. So each
// verifier requests a page once per run however often it is cited, and the run holds at most
// one page per worker and verifier. An outcome keeps what was recorded, not the page body.
//
// It returns the outcome of each citation in the order the store gave them (halted ones
// included, not recorded). When ctx ends, checks in flight are dropped unrecorded and
// RunBatch returns the outcomes so far with an error wrapping ctx.Err(); running it again
// checks what is left. A failed RecordCheck stops the run with its error.
func RunBatch(ctx context.Context, store CheckStore, checker *Checker, actor, batch string, recheck bool, workers int, progress func(done, total int)) ([]Outcome, error) {
	targets, err := store.CitationsToCheck(ctx, batch, recheck)
	if err != nil {
		return nil, fmt.Errorf("check batch %s: %w", batch, err)
	}
	return runTargets(ctx, store, checker, actor, targets, workers, progress)
}

func runTargets(ctx context.Context, store CheckStore, checker *Checker, actor string, targets []evidence.CheckTarget, workers int, progress func(done, total int)) ([]Outcome, error) {
	if workers < 1 {
		workers = DefaultWorkers
	}
	ctx, cancel := context.WithCancelCause(checker.beginRun(ctx))
	defer cancel(nil)
	run := checker.NewRun()
	groups := byURL(targets)
	outs := make([]Outcome, len(targets))
	completed := make([]bool, len(targets))
	var next, done atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(workers, len(groups)) {
		wg.Go(func() {
			for {
				g := int(next.Add(1) - 1)
				if g >= len(groups) || ctx.Err() != nil {
					return
				}
				ok := checkGroup(ctx, cancel, store, run, actor, targets, groups[g], func(i int, out Outcome) {
					mu.Lock()
					outs[i], completed[i] = out, true
					mu.Unlock()
					if n := int(done.Add(1)); progress != nil {
						progress(n, len(targets))
					}
				})
				run.Release(targets[groups[g][0]].URL)
				if !ok {
					return
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		var kept []Outcome
		for i, ok := range completed {
			if ok {
				kept = append(kept, outs[i])
			}
		}
		return kept, fmt.Errorf("batch check stopped after %d of %d citations; run it again to check the rest: %w", len(kept), len(targets), err)
	}
	return outs, nil
}

// checkGroup checks and records the citations targets[i] for i in group, all of one URL, in
// run; it reports each outcome to done, without its body. It returns false when the run must
// stop (ctx ended, or a record failed and cancel was called).
func checkGroup(ctx context.Context, cancel context.CancelCauseFunc, store CheckStore, run *Run, actor string, targets []evidence.CheckTarget, group []int, done func(int, Outcome)) bool {
	quotes := make([]string, len(group))
	for k, i := range group {
		quotes[k] = targets[i].Quote
	}
	run.expect(targets[group[0]].URL, quotes)
	for _, i := range group {
		if ctx.Err() != nil {
			return false
		}
		out, err := run.Check(ctx, targets[i])
		if err != nil {
			return false
		}
		if !out.Halted {
			if err := store.RecordCheck(ctx, actor, out.Checked, out.Body, out.RequestHead, out.ResponseHead, out.Seam); err != nil {
				cancel(fmt.Errorf("record the check of citation %s: %w", targets[i].CitationID, err))
				return false
			}
		}
		out.Body, out.RequestHead, out.ResponseHead = nil, nil, nil // recorded: the run keeps only what it recorded
		done(i, out)
	}
	return true
}

// byURL groups the indices of targets by URL, groups in the order their URL first appears
// and indices in order within a group.
func byURL(targets []evidence.CheckTarget) [][]int {
	at := map[string]int{}
	var groups [][]int
	for i, t := range targets {
		g, ok := at[t.URL]
		if !ok {
			g = len(groups)
			at[t.URL] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// JobState is where a check job stands.
type JobState string

// The job states.
const (
	JobQueued  JobState = "queued"
	JobRunning JobState = "running"
	JobDone    JobState = "done"
	JobFailed  JobState = "failed"
)

// JobStatus is what GET /api/jobs/{id} reports.
type JobStatus struct {
	Job   string   `json:"job"`
	Batch string   `json:"batch"`
	State JobState `json:"state"`
	Total int      `json:"total"`
	Done  int      `json:"done"`
	// Error says why a failed job failed.
	Error string `json:"error,omitempty"`
}

// RunKeeper is a store that keeps each job's run while it runs, so that a run its process
// stopped (SIGTERM past the shutdown grace, kill -9, a crash) is resumed by [Jobs.Resume]
// without checking again what the run had checked. *ledger.Store implements it.
type RunKeeper interface {
	// BeginCheckRun keeps run as its batch's run in progress and returns it as kept: with
	// Since 0, a new run from the chain's head now; with Since set, a run resumed.
	BeginCheckRun(ctx context.Context, run evidence.CheckRun) (evidence.CheckRun, error)
	// EndCheckRun forgets job's run of batch: the run ended by itself.
	EndCheckRun(ctx context.Context, batch, job string) error
	// InterruptedCheckRuns returns the runs that began, did not end, and that no job runs.
	InterruptedCheckRuns(ctx context.Context) ([]evidence.CheckRun, error)
	// CitationsToResume returns the citations of run's batch that run has yet to check.
	CitationsToResume(ctx context.Context, run evidence.CheckRun) ([]evidence.CheckTarget, error)
}

// MaxWait caps how long Jobs.Wait holds a request.
const MaxWait = 60 * time.Second

// Jobs runs batch checks in the background, one job per batch at a time, and reports their
// progress. Jobs live in memory: after a restart their ids are gone. When the store is a
// [RunKeeper], each job's run is kept in the store while it runs, and [Jobs.Resume] resumes
// the runs a stopped process left, under new ids; otherwise checking the batch again checks
// what was left (see CheckStore.CitationsToCheck), and a recheck starts over.
type Jobs struct {
	store   CheckStore
	checker *Checker
	workers int
	ctx     context.Context
	stop    context.CancelCauseFunc
	wg      sync.WaitGroup

	mu       sync.Mutex
	jobs     map[string]*job
	byBatch  map[string]*job
	stopping bool // set by Shutdown and Close: Start takes no new job
}

// ErrStopping is the error of [Jobs.Start] once [Jobs.Shutdown] or [Jobs.Close] began: the
// process is stopping and takes no new check. A server answers it 503.
var ErrStopping = errors.New("the server is shutting down and starts no new check; what was checked stays recorded: start the check again once the server is back")

type job struct {
	status  JobStatus
	changed chan struct{} // closed and replaced on every change
	cancel  context.CancelCauseFunc
}

// NewJobs returns a job runner over store that checks with checker, workers citations at a
// time per job (DefaultWorkers when workers < 1). Close stops it.
func NewJobs(store CheckStore, checker *Checker, workers int) *Jobs {
	ctx, stop := context.WithCancelCause(context.Background())
	return &Jobs{store: store, checker: checker, workers: workers, ctx: ctx, stop: stop,
		jobs: map[string]*job{}, byBatch: map[string]*job{}}
}

// Start starts checking a batch as actor and returns the job's id. When a job for the batch
// is already queued or running in this process, it returns that job's id instead of
// starting another. When the store is also a [CheckLocker], the job holds the batch's check
// lock while it runs, so a check of the batch running in another process (`ledger check`,
// another server) makes Start fail with the locker's error, which wraps ledger.ErrConflict
// and names the running job. The error wraps ErrNoBatch when the batch does not exist, or is
// the store's error.
//
// Once [Jobs.Shutdown] or [Jobs.Close] began, Start fails with [ErrStopping], even for a
// batch whose job runs.
func (j *Jobs) Start(batch, actor string, recheck bool) (string, error) {
	return j.start(evidence.CheckRun{Batch: batch, Actor: actor, Recheck: recheck})
}

// Resume starts a job for every run the store keeps as interrupted (a [RunKeeper]'s
// InterruptedCheckRuns): each checks, as the actor who started the run, the citations the run
// had yet to check, so a recheck stopped halfway checks each citation once in all. A run
// whose batch another process took in the meantime fails to start (the locker's error) and
// stays kept. It returns the ids of the jobs it
// started (none when the store keeps no runs), and the first error met; the other runs are
// resumed all the same. A server calls it when it starts and then now and then, as a run
// left by a killed process is free only once its lock's lease ran out.
func (j *Jobs) Resume(ctx context.Context) ([]string, error) {
	rk, ok := j.store.(RunKeeper)
	if !ok {
		return nil, nil
	}
	runs, err := rk.InterruptedCheckRuns(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	var first error
	for _, run := range runs {
		id, err := j.start(run)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		ids = append(ids, id)
	}
	return ids, first
}

// start starts a job for run: a new run when run.Since is 0, else the interrupted run resumed.
func (j *Jobs) start(run evidence.CheckRun) (string, error) {
	batch, actor, recheck := run.Batch, run.Actor, run.Recheck
	j.mu.Lock()
	if j.stopping {
		j.mu.Unlock()
		return "", fmt.Errorf("start checking batch %s: %w", batch, ErrStopping)
	}
	if cur := j.byBatch[batch]; cur != nil && (cur.status.State == JobQueued || cur.status.State == JobRunning) {
		j.mu.Unlock()
		return cur.status.Job, nil
	}
	// Reserved before anything slow, so that a second Start answers with this job.
	jb := &job{status: JobStatus{Job: newID("j_"), Batch: batch, State: JobQueued}, changed: make(chan struct{})}
	j.jobs[jb.status.Job] = jb
	j.byBatch[batch] = jb
	j.wg.Add(1) // under mu, so that Shutdown, which sets stopping under mu, waits for it
	j.mu.Unlock()
	ctx, cancel := context.WithCancelCause(j.ctx)
	j.mu.Lock()
	jb.cancel = cancel
	j.mu.Unlock()
	fail := func(err error) (string, error) {
		defer j.wg.Done()
		cancel(nil)
		j.update(jb, func(s *JobStatus) { s.State, s.Error = JobFailed, err.Error() })
		j.mu.Lock()
		if j.byBatch[batch] == jb {
			delete(j.byBatch, batch)
		}
		j.mu.Unlock()
		return "", err
	}
	release := func() {}
	if l, ok := j.store.(CheckLocker); ok {
		r, err := holdLock(ctx, l, batch, jb.status.Job, Holder(""), cancel)
		if err != nil {
			return fail(fmt.Errorf("start checking batch %s: %w", batch, err))
		}
		release = r
	}
	var targets []evidence.CheckTarget
	var err error
	end := func() {}
	if rk, ok := j.store.(RunKeeper); ok {
		run.Job = jb.status.Job
		if run, err = rk.BeginCheckRun(ctx, run); err == nil {
			targets, err = rk.CitationsToResume(ctx, run)
		}
		end = func() { rk.EndCheckRun(context.WithoutCancel(ctx), batch, run.Job) }
	} else {
		targets, err = j.store.CitationsToCheck(ctx, batch, recheck)
	}
	if err != nil {
		end()
		release()
		return fail(fmt.Errorf("start checking batch %s: %w", batch, err))
	}
	j.update(jb, func(s *JobStatus) { s.Total = len(targets) })
	go func() {
		defer j.wg.Done()
		defer cancel(nil)
		j.update(jb, func(s *JobStatus) { s.State = JobRunning })
		_, err := runTargets(ctx, j.store, j.checker, actor, targets, j.workers, func(done, _ int) {
			j.update(jb, func(s *JobStatus) { s.Done = done })
		})
		// A run its process stops stays kept, to be resumed; any other end ends it. Then
		// the lock is free, before anyone learns that the job ended.
		if !errors.Is(context.Cause(ctx), ErrStopping) {
			end()
		}
		release()
		j.update(jb, func(s *JobStatus) {
			if err != nil {
				s.State, s.Error = JobFailed, err.Error()
				return
			}
			s.State = JobDone
		})
	}()
	return jb.status.Job, nil
}

func (j *Jobs) update(jb *job, f func(*JobStatus)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	f(&jb.status)
	close(jb.changed)
	jb.changed = make(chan struct{})
}

// Status reports a job; false when there is no job with that id.
func (j *Jobs) Status(id string) (JobStatus, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	jb, ok := j.jobs[id]
	if !ok {
		return JobStatus{}, false
	}
	return jb.status, true
}

// Wait reports a job once it is done or failed, or after wait (capped at MaxWait), or when
// ctx ends, whichever comes first; false when there is no job with that id.
func (j *Jobs) Wait(ctx context.Context, id string, wait time.Duration) (JobStatus, bool) {
	timer := time.NewTimer(min(max(wait, 0), MaxWait))
	defer timer.Stop()
	for {
		j.mu.Lock()
		jb, ok := j.jobs[id]
		if !ok {
			j.mu.Unlock()
			return JobStatus{}, false
		}
		st, changed := jb.status, jb.changed
		j.mu.Unlock()
		if st.State == JobDone || st.State == JobFailed {
			return st, true
		}
		select {
		case <-changed:
		case <-timer.C:
			return st, true
		case <-ctx.Done():
			return st, true
		}
	}
}

// Cancel stops a queued or running job for the reason why: checks in flight are dropped
// unrecorded, what was recorded stays, and the job ends failed with why as its error.
// Checking the batch again checks the rest. It reports whether there was such a job still
// running.
func (j *Jobs) Cancel(id string, why error) bool {
	j.mu.Lock()
	jb, ok := j.jobs[id]
	if !ok || jb.cancel == nil || (jb.status.State != JobQueued && jb.status.State != JobRunning) {
		j.mu.Unlock()
		return false
	}
	cancel := jb.cancel
	j.mu.Unlock()
	cancel(why)
	return true
}

// Shutdown stops taking jobs ([Jobs.Start] fails with [ErrStopping] from now on) and waits
// for the queued and running ones to end by themselves, until ctx ends; then it stops
// those left as [Jobs.Close] does (checks in flight are dropped unrecorded and their batch's
// check lock is released at once, so the next check of the batch, in this process or
// another, checks what is left). It returns how many jobs it had to stop: 0 when every job
// finished in time.
func (j *Jobs) Shutdown(ctx context.Context) int {
	j.mu.Lock()
	j.stopping = true
	j.mu.Unlock()
	ended := make(chan struct{})
	go func() {
		j.wg.Wait()
		close(ended)
	}()
	select {
	case <-ended:
		return 0
	case <-ctx.Done():
	}
	j.mu.Lock()
	n := 0
	for _, jb := range j.jobs {
		if jb.status.State == JobQueued || jb.status.State == JobRunning {
			n++
		}
	}
	j.mu.Unlock()
	j.stop(ErrStopping)
	<-ended
	return n
}

// Close stops taking jobs and stops every running job (checks in flight are dropped
// unrecorded), and waits for them to end.
func (j *Jobs) Close() {
	j.mu.Lock()
	j.stopping = true
	j.mu.Unlock()
	j.stop(ErrStopping)
	j.wg.Wait()
}
