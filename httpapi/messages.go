package httpapi

import (
	"fmt"

	"github.com/sitediag/sitediag"
)

// The API's success messages, all in one place.
const (
	messageHealthy   = "API is healthy"
	messageReachable = "Site is reachable."
)

// upMessage is /up's message.
func upMessage(reachable bool) string {
	if reachable {
		return "Site is up"
	}
	return "Unable to reach the URL."
}

// mixedContentMessage is /mixedcontent's message.
func mixedContentMessage(found bool) string {
	if found {
		return "Mixed content(s) found."
	}
	return "No mixed content found."
}

// brokenLinkMessage is /brokenlink's message: "Found 3 broken links out
// of 12." (the links counted as broken or server errors) or "No broken
// links found.".
func brokenLinkMessage(s sitediag.LinkSummary) string {
	bad := s.Broken + s.ServerError
	switch bad {
	case 0:
		return "No broken links found."
	case 1:
		return fmt.Sprintf("Found 1 broken link out of %d.", s.Total)
	}
	return fmt.Sprintf("Found %d broken links out of %d.", bad, s.Total)
}

// pageMessage is the message of a browser operation whose page did not
// finish loading in time, saying what was done instead; "" when it did.
func pageMessage(pv sitediag.PageVisit) string {
	switch {
	case pv.ScriptsStopped:
		return "The page did not finish loading in time: its scripts kept it busy, so they were stopped and the page was used as it was."
	case pv.LoadTimedOut:
		return "The page did not finish loading in time: it was used as it was."
	}
	return ""
}
