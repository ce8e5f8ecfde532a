package browser

import (
	"context"
	"io"
	"sync"
)

// Stream runs fn as a job (see Do) in the background and returns, as a
// stream, what fn writes to w: it returns once fn has written its first
// byte, or with fn's error when fn ended before writing anything. An
// error fn returns after its first write, or ctx's error when ctx ends
// first, is the stream's read error.
//
// The job, and its slot, last until fn returns: the caller must read the
// stream to the end or close it (which fails fn's next write), and ctx
// bounds it in any case.
func (p *Pool) Stream(ctx context.Context, opts JobOptions, fn func(ctx context.Context, j *Job, w io.Writer) error) (io.ReadCloser, error) {
	return stream(ctx, p.Do, opts, fn)
}

// stream is Stream over do, a Pool's or a Fleet's Do.
func stream(ctx context.Context, do func(context.Context, JobOptions, func(context.Context, *Job) error) error,
	opts JobOptions, fn func(ctx context.Context, j *Job, w io.Writer) error) (io.ReadCloser, error) {
	pr, pw := io.Pipe()
	// A caller that neither reads nor closes cannot hold the job past
	// ctx: the write side is closed with ctx's error.
	stop := context.AfterFunc(ctx, func() { pw.CloseWithError(context.Cause(ctx)) })
	ready := make(chan error, 1)
	go func() {
		w := &firstWrite{w: pw, ready: ready}
		err := do(ctx, opts, func(ctx context.Context, j *Job) error { return fn(ctx, j, w) })
		stop()
		w.signal(err)
		pw.CloseWithError(err) // nil: io.EOF
	}()
	if err := <-ready; err != nil {
		pr.Close()
		return nil, err
	}
	return pr, nil
}

// firstWrite reports, once, whether the stream started (its first
// write) or the job ended before it did.
type firstWrite struct {
	w     io.Writer
	ready chan<- error
	once  sync.Once
}

func (s *firstWrite) Write(p []byte) (int, error) {
	s.signal(nil)
	return s.w.Write(p)
}

// signal sends err as the start signal if none was sent.
func (s *firstWrite) signal(err error) {
	s.once.Do(func() { s.ready <- err })
}
