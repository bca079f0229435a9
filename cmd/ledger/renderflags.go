package main

import (
	"flag"
	"fmt"
	"io"

	"evidenceledger/verify"
)

// addRenderFlags adds the rendering verifier's flags to fs, the flags of serve, check or
// gate, and returns the function that, once fs is parsed, builds the renderer (nil when it
// is off):
//
//	--chromium PATH         the Chromium binary (default: $LEDGER_CHROMIUM, else chromium,
//	                        chromium-browser, google-chrome or google-chrome-stable on the PATH)
//	--render=false          no rendering verifier: the visibility of found quotes on web pages
//	                        rests on the style rules alone
//	--render-scripts=false  never read a page with its scripts on
//
// The browser starts at the first quote found on a web page and ends with the command.
func addRenderFlags(fs *flag.FlagSet, e *env) func() *verify.Renderer {
	bin := fs.String("chromium", e.getenv(verify.EnvChromium), "`path` of the Chromium binary of the rendering verifier (default: $"+verify.EnvChromium+", else chromium, chromium-browser or google-chrome on the PATH)")
	on := fs.Bool("render", true, "confirm each quote found on a web page in headless Chromium (false: visibility rests on the style rules alone)")
	scripts := fs.Bool("render-scripts", true, "read a page whose text only its scripts draw with its inline scripts on")
	return func() *verify.Renderer {
		if !*on {
			return nil
		}
		return verify.NewRenderer(verify.RenderConfig{Binary: *bin, Scripts: *scripts})
	}
}

// sayRenderer writes one line saying how the visibility of found quotes is confirmed.
func sayRenderer(w io.Writer, r *verify.Renderer) {
	if r == nil {
		fmt.Fprintln(w, "ledger: rendering verifier off (--render=false): the visibility of found quotes on web pages rests on the style rules alone")
		return
	}
	bin, err := r.Available()
	if err != nil {
		fmt.Fprintf(w, "ledger: no browser for the rendering verifier (%v): the visibility of found quotes on web pages rests on the style rules alone\n", err)
		return
	}
	fmt.Fprintf(w, "ledger: rendering verifier: %s, started at the first quote found on a web page\n", bin)
}
