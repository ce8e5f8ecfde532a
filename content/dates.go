package content

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/itlightning/dateparse"
)

// parseDate reads a date value as metascraper does: an ISO 8601 or RFC
// 3339 value, a bare year, RFC 1123 and the other machine forms, else a
// date written in the text ("Posted on May 24, 2016 at 5:42 am", "By
// Lydia Dishman 05.24.16 5:42 AM"), line by line. Times without a zone
// are UTC.
func parseDate(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	if t, ok := parseMachineDate(clean(v)); ok {
		return t, true
	}
	for _, line := range strings.Split(v, "\n") {
		if t, _, ok := findDate(clean(line)); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// parseMachineDate reads a whole value in a machine form: RFC 3339 and
// ISO 8601 variants, a bare year, Unix seconds or milliseconds, RFC 1123.
func parseMachineDate(v string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04Z07:00",
		"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, plausible(t)
		}
	}
	if len(v) == 4 && allDigits(v) {
		y, _ := strconv.Atoi(v)
		t := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		return t, plausible(t)
	}
	if allDigits(v) && (len(v) == 10 || len(v) == 13) {
		n, _ := strconv.ParseInt(v, 10, 64)
		if len(v) == 13 {
			return time.UnixMilli(n).UTC(), true
		}
		return time.Unix(n, 0).UTC(), true
	}
	if !machineLike.MatchString(v) {
		return time.Time{}, false
	}
	t, err := dateparse.ParseIn(v, time.UTC)
	if err != nil {
		return time.Time{}, false
	}
	return t, plausible(t)
}

// machineLike are values dateparse may read whole: RFC 1123 and its
// kin ("Tue, 24 May 2016 05:42:00 GMT"). Free text goes to findDate.
var machineLike = regexp.MustCompile(`^(?i)(mon|tue|wed|thu|fri|sat|sun)[a-z]*,? \d{1,2} [a-z]{3,} \d{4} \d{1,2}:\d{2}`)

func plausible(t time.Time) bool { return t.Year() >= 1900 && t.Year() <= 2200 }

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// The date forms findDate reads in text, month names in English (as
// metascraper's parser, chrono's English locale, reads them).
const (
	monthRE = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`
	timeRE  = `(?:,?\s*(?:at\s+|@\s*|-\s*|·\s*)?(\d{1,2})(?::(\d{2}))(?::(\d{2}))?\s*([ap]\.?m\.?)?(?:\s*\(?(utc|gmt|est|edt|cst|cdt|mst|mdt|pst|pdt|bst|cet|cest|[+-]\d{2}:?\d{2})\)?)?)?`
)

var (
	// May 24, 2016 / May 24th 2016 / Tuesday, May 24, 2016
	monthDayYear = regexp.MustCompile(`(?i)\b` + monthRE + `\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b` + timeRE)
	// 24 May 2016 / 24th of May, 2016
	dayMonthYear = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRE + `,?\s+(\d{4})\b` + timeRE)
	// 2016-05-24 / 2016/05/24 / 2016.05.24 (time optional)
	yearMonthDay = regexp.MustCompile(`\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b` + `(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?`)
	// 05/24/2016 / 05.24.16 / 5-24-2016: month first, as chrono's
	// English parser reads it (a first number over 12 is the day).
	numericDate = regexp.MustCompile(`(?i)\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})\b` + timeRE)
)

// zoneOffsets are the zone abbreviations a written time may carry.
var zoneOffsets = map[string]int{"utc": 0, "gmt": 0, "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6,
	"pst": -8, "pdt": -7, "bst": 1, "cet": 1, "cest": 2}

// findDate finds the first date written in text and where it starts;
// a date without a time is midnight UTC.
func findDate(text string) (time.Time, [2]int, bool) {
	type hit struct {
		t    time.Time
		span [2]int
	}
	var best *hit
	try := func(re *regexp.Regexp, read func(m []string) (int, time.Month, int, []string)) {
		for _, idx := range re.FindAllStringSubmatchIndex(text, -1) {
			m := submatches(text, idx)
			y, mon, d, clock := read(m)
			t, ok := makeDate(y, mon, d, clock)
			if !ok {
				continue
			}
			if best == nil || idx[0] < best.span[0] {
				best = &hit{t, [2]int{idx[0], idx[1]}}
			}
			break
		}
	}
	try(monthDayYear, func(m []string) (int, time.Month, int, []string) {
		return atoi(m[3]), monthOf(m[1]), atoi(m[2]), m[4:]
	})
	try(dayMonthYear, func(m []string) (int, time.Month, int, []string) {
		return atoi(m[3]), monthOf(m[2]), atoi(m[1]), m[4:]
	})
	try(yearMonthDay, func(m []string) (int, time.Month, int, []string) {
		return atoi(m[1]), time.Month(atoi(m[2])), atoi(m[3]), append(m[4:7:7], "", "")
	})
	try(numericDate, func(m []string) (int, time.Month, int, []string) {
		a, b, y := atoi(m[1]), atoi(m[2]), atoi(m[3])
		if len(m[3]) == 2 {
			y += 2000
			if y > time.Now().Year()+1 {
				y -= 100
			}
		}
		if a > 12 { // day first
			a, b = b, a
		}
		return y, time.Month(a), b, m[4:]
	})
	if best == nil {
		return time.Time{}, [2]int{}, false
	}
	return best.t, best.span, true
}

// submatches are a match's groups as strings ("" when unmatched).
func submatches(s string, idx []int) []string {
	out := make([]string, len(idx)/2)
	for i := range out {
		if idx[2*i] >= 0 {
			out[i] = s[idx[2*i]:idx[2*i+1]]
		}
	}
	return out
}

// makeDate builds a date from its parts and an optional clock (hour,
// minute, second, am/pm, zone), refusing impossible ones.
func makeDate(y int, mon time.Month, d int, clock []string) (time.Time, bool) {
	if mon < 1 || mon > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	h, mi, s := 0, 0, 0
	loc := time.UTC
	if len(clock) >= 2 && clock[0] != "" && clock[1] != "" {
		h, mi = atoi(clock[0]), atoi(clock[1])
		if len(clock) > 2 {
			s = atoi(clock[2])
		}
		if len(clock) > 3 && clock[3] != "" {
			pm := strings.HasPrefix(strings.ToLower(clock[3]), "p")
			switch {
			case h == 12 && !pm:
				h = 0
			case h < 12 && pm:
				h += 12
			}
		}
		if len(clock) > 4 && clock[4] != "" {
			loc = zone(clock[4])
		}
		if h > 23 || mi > 59 || s > 59 {
			return time.Time{}, false
		}
	}
	t := time.Date(y, mon, d, h, mi, s, 0, loc)
	if t.Day() != d || !plausible(t) {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// zone is the location of an abbreviation or a numeric offset.
func zone(z string) *time.Location {
	z = strings.ToLower(z)
	if h, ok := zoneOffsets[z]; ok {
		return time.FixedZone(z, h*3600)
	}
	z = strings.ReplaceAll(z, ":", "")
	if len(z) == 5 {
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		return time.FixedZone(z, sign*(atoi(z[1:3])*3600+atoi(z[3:5])*60))
	}
	return time.UTC
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// monthOf reads an English month name or abbreviation.
func monthOf(s string) time.Month {
	s = strings.ToLower(strings.TrimSuffix(s, "."))
	for m := time.January; m <= time.December; m++ {
		if strings.HasPrefix(strings.ToLower(m.String()), s[:min(3, len(s))]) {
			return m
		}
	}
	return 0
}
