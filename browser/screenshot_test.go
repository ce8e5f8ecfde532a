package browser

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/option"
)

// shoot loads target in a job with opts and captures it with shot.
func (e *env) shoot(t *testing.T, target string, opts JobOptions, load LoadOptions, shot ShotOptions) (*Shot, error) {
	t.Helper()
	var out *Shot
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	err := e.pool.Do(ctx, opts, func(ctx context.Context, j *Job) error {
		if _, err := j.Load(ctx, target, load); err != nil {
			return err
		}
		var err error
		out, err = j.Screenshot(ctx, shot)
		return err
	})
	return out, err
}

func (e *env) mustShoot(t *testing.T, target string, opts JobOptions, load LoadOptions, shot ShotOptions) *Shot {
	t.Helper()
	s, err := e.shoot(t, target, opts, load, shot)
	if err != nil {
		t.Fatalf("screenshot of %s: %v", target, err)
	}
	return s
}

// near reports whether two colours are within a few levels per channel
// (JPEG and WebP are lossy).
func near(c color.Color, want color.RGBA) bool {
	r, g, b, a := c.RGBA()
	d := func(x uint32, y uint8) bool {
		v := int(x>>8) - int(y)
		return v > -24 && v < 24
	}
	return d(r, want.R) && d(g, want.G) && d(b, want.B) && d(a, want.A)
}

var (
	red   = color.RGBA{255, 0, 0, 255}
	green = color.RGBA{0, 255, 0, 255}
	blue  = color.RGBA{0, 0, 255, 255}
	white = color.RGBA{255, 255, 255, 255}
	black = color.RGBA{0, 0, 0, 255}
)

const tallPage = `<!doctype html><html><body style="margin:0;background:#0f0">
<div style="height:3000px"></div>
<div id="box" style="position:absolute;left:100px;top:500px;width:300px;height:200px;background:#f00"></div>
<div id="empty"></div>
</body></html>`

func TestScreenshots(t *testing.T) {
	e := newEnv(t, Config{})
	tall := e.site.page("/tall", tallPage)

	t.Run("formats", func(t *testing.T) {
		for _, f := range []ImageType{PNG, JPEG, WebP} {
			shot := e.mustShoot(t, tall, JobOptions{}, LoadOptions{}, ShotOptions{Type: f, Quality: 80})
			img := decode(t, shot.Data, string(f))
			wantSize(t, img, 1366, 768)
			if px := img.At(10, 10); !near(px, green) {
				t.Errorf("%s: pixel (10,10) is %v, want green", f, px)
			}
		}
	})

	t.Run("full page is taller than the viewport", func(t *testing.T) {
		for _, resize := range []bool{false, true} {
			shot := e.mustShoot(t, tall, JobOptions{}, LoadOptions{}, ShotOptions{FullPage: option.On, CaptureBeyondViewport: option.ToggleOf(!resize)})
			img := decode(t, shot.Data, "png")
			wantSize(t, img, 1366, 3000)
			if px := img.At(200, 600); !near(px, red) {
				t.Errorf("resize=%v: the box at (200,600) is %v, want red", resize, px)
			}
		}
	})

	t.Run("page height", func(t *testing.T) {
		shot := e.mustShoot(t, tall, JobOptions{}, LoadOptions{}, ShotOptions{PageHeight: 1200})
		wantSize(t, decode(t, shot.Data, "png"), 1366, 1200)
		shot = e.mustShoot(t, tall, JobOptions{}, LoadOptions{}, ShotOptions{FullPage: option.On, PageHeight: 1000})
		wantSize(t, decode(t, shot.Data, "png"), 1366, 1000)
	})

	t.Run("element by selector", func(t *testing.T) {
		shot := e.mustShoot(t, tall, JobOptions{}, LoadOptions{}, ShotOptions{Selector: "#box"})
		img := decode(t, shot.Data, "png")
		wantSize(t, img, 300, 200)
		if !shot.SelectorFound || !near(img.At(0, 0), red) || !near(img.At(299, 199), red) {
			t.Errorf("found=%v, corners %v %v, want the red box", shot.SelectorFound, img.At(0, 0), img.At(299, 199))
		}
	})

	t.Run("selector without a match", func(t *testing.T) {
		_, err := e.shoot(t, tall, JobOptions{}, LoadOptions{}, ShotOptions{Selector: "#empty"})
		if !errors.Is(err, ErrNoElement) {
			t.Errorf("got %v, want ErrNoElement", err)
		}
		shot := e.mustShoot(t, tall, JobOptions{}, LoadOptions{}, ShotOptions{Selector: "#missing", FallbackToFullPage: option.On})
		wantSize(t, decode(t, shot.Data, "png"), 1366, 3000)
		if shot.SelectorFound {
			t.Error("SelectorFound is true for a selector without a match")
		}
		_, err = e.shoot(t, tall, JobOptions{}, LoadOptions{}, ShotOptions{Selector: "div[[", FallbackToFullPage: option.On})
		var se *SelectorError
		if !errors.As(err, &se) {
			t.Errorf("invalid selector: got %v, want a *SelectorError", err)
		}
	})

	t.Run("viewport and scale", func(t *testing.T) {
		shot := e.mustShoot(t, tall, JobOptions{Width: 800, Height: 600}, LoadOptions{}, ShotOptions{})
		wantSize(t, decode(t, shot.Data, "png"), 800, 600)
		shot = e.mustShoot(t, tall, JobOptions{Width: 400, Height: 300, Scale: 2}, LoadOptions{}, ShotOptions{})
		wantSize(t, decode(t, shot.Data, "png"), 800, 600)
	})

	t.Run("mobile emulation", func(t *testing.T) {
		ua := e.site.page("/ua", `<!doctype html><body style="margin:0">
<script>document.body.textContent = navigator.userAgent + ' ' + innerWidth + ' ' + navigator.maxTouchPoints</script>`)
		shot := e.mustShoot(t, ua, JobOptions{Device: Mobile}, LoadOptions{}, ShotOptions{})
		wantSize(t, decode(t, shot.Data, "png"), 390*3, 844*3)
		seen := e.site.requests("/ua")
		if len(seen) == 0 || !strings.Contains(seen[len(seen)-1].userAgent, "Mobile") || !strings.Contains(seen[len(seen)-1].userAgent, "Android") {
			t.Errorf("the server saw user agent %v, want a mobile one", seen)
		}
		e.mustShoot(t, ua, JobOptions{}, LoadOptions{}, ShotOptions{})
		seen = e.site.requests("/ua")
		if last := seen[len(seen)-1].userAgent; strings.Contains(last, "Mobile") || strings.Contains(last, "Headless") {
			t.Errorf("desktop user agent is %q, want a desktop one without Headless", last)
		}
	})

	t.Run("theme", func(t *testing.T) {
		themed := e.site.page("/themed", `<!doctype html><style>
body { background: #fff } @media (prefers-color-scheme: dark) { body { background: #000 } }</style><body>`)
		for theme, want := range map[Theme]color.RGBA{Dark: black, Light: white} {
			shot := e.mustShoot(t, themed, JobOptions{Theme: theme}, LoadOptions{}, ShotOptions{})
			if px := decode(t, shot.Data, "png").At(50, 50); !near(px, want) {
				t.Errorf("theme %s: pixel is %v, want %v", theme, px, want)
			}
		}
	})

	t.Run("transparent background", func(t *testing.T) {
		bare := e.site.page("/bare", `<!doctype html><body><p>text</p></body>`)
		shot := e.mustShoot(t, bare, JobOptions{RemoveBackground: true}, LoadOptions{}, ShotOptions{})
		if _, _, _, a := decode(t, shot.Data, "png").At(600, 600).RGBA(); a != 0 {
			t.Errorf("alpha is %d, want 0", a)
		}
	})

	t.Run("cookie banners hidden and scrolling restored", func(t *testing.T) {
		banner := e.site.page("/consent", `<!doctype html><body style="margin:0;overflow:hidden;background:#0f0">
<div style="height:3000px"></div>
<div id="onetrust-consent-sdk" style="position:fixed;inset:0;background:#f00;z-index:99">We value your privacy</div>
<script>document.documentElement.style.overflow = 'hidden'</script></body>`)
		shown := e.mustShoot(t, banner, JobOptions{}, LoadOptions{}, ShotOptions{})
		if px := decode(t, shown.Data, "png").At(600, 300); !near(px, red) {
			t.Fatalf("without hiding, pixel is %v, want the red banner", px)
		}
		var scroll string
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		err := e.pool.Do(ctx, JobOptions{}, func(ctx context.Context, j *Job) error {
			if _, err := j.Load(ctx, banner, LoadOptions{HideCookie: true}); err != nil {
				return err
			}
			shot, err := j.Screenshot(ctx, ShotOptions{})
			if err != nil {
				return err
			}
			if px := decode(t, shot.Data, "png").At(600, 300); !near(px, green) {
				t.Errorf("hidden banner: pixel is %v, want the green page", px)
			}
			res, err := j.Page(ctx).Eval(`() => getComputedStyle(document.documentElement).overflow + ' ' + getComputedStyle(document.body).overflow`)
			if err != nil {
				return err
			}
			scroll = res.Value.Str()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if scroll != "auto auto" {
			t.Errorf("overflow of html and body is %q, want scrolling restored (auto auto)", scroll)
		}
	})

	t.Run("ads blocked", func(t *testing.T) {
		ad := fmt.Sprintf("http://ads.doubleclick.net:%s/ad.png", e.site.port)
		page := e.site.page("/ads", `<!doctype html><body><img src="`+ad+`"></body>`)
		adRequests := func() int {
			n := 0
			for _, h := range e.site.hosts() {
				if strings.HasPrefix(h, "ads.doubleclick.net") {
					n++
				}
			}
			return n
		}
		var stats Stats
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		err := e.pool.Do(ctx, JobOptions{BlockAds: true}, func(ctx context.Context, j *Job) error {
			_, err := j.Load(ctx, page, LoadOptions{})
			stats = j.Stats()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := adRequests(); n != 0 || stats.Blocked == 0 {
			t.Errorf("with BlockAds: %d ad requests reached the server, %d blocked; want 0 and some", n, stats.Blocked)
		}
		e.mustShoot(t, page, JobOptions{}, LoadOptions{}, ShotOptions{})
		if adRequests() == 0 {
			t.Error("without BlockAds the ad request never reached the server")
		}
	})

	t.Run("the ad host asked for is not blocked", func(t *testing.T) {
		e.site.page("/ad-target", `<!doctype html><body>ad</body>`)
		for _, host := range []string{"ads.doubleclick.net", "ADS.doubleclick.net."} {
			target := fmt.Sprintf("http://%s:%s/ad-target", host, e.site.port)
			var stats Stats
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			err := e.pool.Do(ctx, JobOptions{BlockAds: true}, func(ctx context.Context, j *Job) error {
				_, err := j.Load(ctx, target, LoadOptions{})
				stats = j.Stats()
				return err
			})
			cancel()
			if err != nil || stats.Blocked != 0 {
				t.Errorf("Load(%s) with BlockAds: got %v and %d blocked, want it loaded", target, err, stats.Blocked)
			}
		}
	})

	t.Run("timestamp overlay", func(t *testing.T) {
		plain := e.site.page("/white", `<!doctype html><body style="background:#fff">`)
		stamp := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
		with := decode(t, e.mustShoot(t, plain, JobOptions{}, LoadOptions{}, ShotOptions{Timestamp: stamp}).Data, "png")
		without := decode(t, e.mustShoot(t, plain, JobOptions{}, LoadOptions{}, ShotOptions{}).Data, "png")
		if dark(with, image.Rect(1366-250, 0, 1366, 50)) == 0 {
			t.Error("no overlay in the top-right corner")
		}
		if n := dark(without, image.Rect(1366-250, 0, 1366, 50)); n != 0 {
			t.Errorf("%d dark pixels in the corner without a timestamp", n)
		}
	})

	t.Run("animations frozen", func(t *testing.T) {
		anim := e.site.page("/anim", `<!doctype html><style>
@keyframes fade { from { background: #f00 } to { background: #00f } }
body { margin: 0; height: 100vh; animation: fade 100s linear forwards }</style><body>`)
		frozen := decode(t, e.mustShoot(t, anim, JobOptions{DisableAnimations: true}, LoadOptions{}, ShotOptions{}).Data, "png")
		if px := frozen.At(50, 50); !near(px, blue) {
			t.Errorf("frozen animation shows %v, want its end state (blue)", px)
		}
	})

	t.Run("links highlighted", func(t *testing.T) {
		link := e.site.page("/link", `<!doctype html><body style="margin:0;background:#fff">
<a href="#x" style="position:absolute;left:100px;top:100px;width:200px;height:100px;display:block;background:#fff"></a>`)
		img := decode(t, e.mustShoot(t, link, JobOptions{}, LoadOptions{}, ShotOptions{HighlightLinks: option.On}).Data, "png")
		if px := img.At(98, 150); !near(px, color.RGBA{0xe8, 0x17, 0x5d, 255}) {
			t.Errorf("outline pixel is %v, want the highlight colour", px)
		}
	})

	t.Run("dialogs dismissed", func(t *testing.T) {
		dialog := e.site.page("/dialog", `<!doctype html><body style="background:#0f0">
<script>alert('hi'); confirm('sure?'); prompt('name?')</script>`)
		shot := e.mustShoot(t, dialog, JobOptions{}, LoadOptions{}, ShotOptions{})
		if px := decode(t, shot.Data, "png").At(10, 10); !near(px, green) {
			t.Errorf("pixel is %v, want the page behind the dismissed dialogs", px)
		}
	})
}

// dark counts the dark pixels of img in r.
func dark(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if cr, cg, cb, _ := img.At(x, y).RGBA(); cr < 0x8000 && cg < 0x8000 && cb < 0x8000 {
				n++
			}
		}
	}
	return n
}

// A page whose scripts never yield is captured at the deadline: the wait
// for its load ends at half the job's time, its scripts are stopped, and
// what it had parsed and painted by then is in the image.
func TestScreenshotOfABusyPage(t *testing.T) {
	e := newEnv(t, Config{})
	busy := e.site.page("/busy", `<!doctype html><body style="margin:0;background:#f00">`+
		`<script>while(true){}</script><p>never parsed</p><script>document.body.style.background='#00f'</script>`)
	e.do(t, JobOptions{}, func(context.Context, *Job) error { return nil }) // the browser's start is not the page's time
	began := time.Now()
	var v *Visit
	var shot *Shot
	var html string
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	err := e.pool.Do(ctx, JobOptions{Timeout: 6 * time.Second}, func(ctx context.Context, j *Job) error {
		var err error
		if v, err = j.Load(ctx, busy, LoadOptions{SkipCaptcha: true}); err != nil {
			return err
		}
		if shot, err = j.Screenshot(ctx, ShotOptions{Type: PNG}); err != nil {
			return err
		}
		html, err = j.HTML(ctx, 1<<20)
		return err
	})
	if err != nil {
		t.Fatalf("busy page: %v", err)
	}
	if took := time.Since(began); took > 6*time.Second {
		t.Errorf("took %s, want within the job's 6 s", took)
	}
	if v.Loaded || !v.ScriptsStopped {
		t.Errorf("visit %+v, want not loaded, scripts stopped", v)
	}
	if px := decode(t, shot.Data, "png").At(50, 50); !near(px, red) {
		t.Errorf("pixel %v, want the red the page had painted (its later scripts stay stopped)", px)
	}
	if !strings.Contains(html, "never parsed") {
		t.Errorf("document %q: want the rest of the page parsed once its scripts stopped", html)
	}
}

// A page that yields is loaded as before: nothing is stopped.
func TestLoadOfAnIdlePage(t *testing.T) {
	e := newEnv(t, Config{})
	v, _, err := e.load(t, e.site.page("/idle", `<!doctype html><p>idle</p>`), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Loaded || v.ScriptsStopped {
		t.Errorf("visit %+v, want loaded, scripts running", v)
	}
}

// Captures in one browser are drawn and read back one at a time: a job
// whose capture comes while another's is under way waits for it (and
// for no longer than its own deadline), then captures.
func TestCapturesOneAtATime(t *testing.T) {
	e := newEnv(t, Config{MaxJobs: 2})
	page := e.site.page("/one", `<!doctype html><body style="background:#0f0">`)
	var in *instance
	e.do(t, JobOptions{}, func(_ context.Context, j *Job) error {
		in = instanceOf(j)
		return nil
	})
	in.capturing <- struct{}{} // another job's capture, under way
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
		defer cancel()
		done <- e.pool.Do(ctx, JobOptions{}, func(ctx context.Context, j *Job) error {
			if _, err := j.Load(ctx, page, LoadOptions{}); err != nil {
				return err
			}
			_, err := j.Screenshot(ctx, ShotOptions{})
			return err
		})
	}()
	select {
	case err := <-done:
		t.Fatalf("the capture did not wait for the one under way: %v", err)
	case <-time.After(2 * time.Second):
	}
	<-in.capturing
	if err := <-done; err != nil {
		t.Fatalf("the capture once the other was done: %v", err)
	}
	in.capturing <- struct{}{}
	defer func() { <-in.capturing }()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	err := e.pool.Do(ctx, JobOptions{}, func(ctx context.Context, j *Job) error {
		if _, err := j.Load(ctx, page, LoadOptions{}); err != nil {
			return err
		}
		_, err := j.Screenshot(ctx, ShotOptions{})
		return err
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a capture waiting past its deadline returned %v, want context.DeadlineExceeded", err)
	}
}
