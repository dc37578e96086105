package blueprint

import (
	"fmt"
	"strings"

	"github.com/robfig/cron/v3"
)

// cronParser reads five-field cron expressions (minute, hour, day of
// month, month, day of week) with an optional CRON_TZ= zone. Shorthands
// (@hourly, @every 90m) are not crons of five fields: ParseCron refuses
// them with the five fields to write instead.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// shorthands are the five fields of the cron library's @ shorthands.
var shorthands = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// ParseCron parses a five-field cron expression (minute hour
// day-of-month month day-of-week, after an optional CRON_TZ=zone) and
// refuses one that never fires (such as "0 0 30 2 *": February has no
// 30th).
func ParseCron(expr string) (cron.Schedule, error) {
	// The cron library slices a zone up to the first space: with none
	// after it, it panics.
	zone, fields := splitZone(expr)
	if zone != "" && !strings.Contains(expr, " ") {
		return nil, fmt.Errorf("%q is not a five-field cron expression: the time zone is not followed by a space and the fields", expr)
	}
	if strings.HasPrefix(fields, "@") {
		word, _, _ := strings.Cut(fields, " ")
		if five, ok := shorthands[word]; ok {
			return nil, fmt.Errorf("%q is not a five-field cron expression: give the five fields (minute hour day-of-month month day-of-week); %s is %q", expr, word, five)
		}
		return nil, fmt.Errorf("%q is not a five-field cron expression: give the five fields (minute hour day-of-month month day-of-week), such as \"*/15 * * * *\" for every 15 minutes", expr)
	}
	s, err := cronParser.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("%q is not a five-field cron expression: %v", expr, err)
	}
	if spec, ok := s.(*cron.SpecSchedule); !ok || !firesSometime(spec) {
		return nil, fmt.Errorf("%q never fires: none of its months has one of its days of the month", expr)
	}
	return s, nil
}

// ParseStoredCron parses the cron of a record stored before crons had to
// be written as five fields: a shorthand such as @hourly is read as its
// five fields. What add accepts today reads as ParseCron reads it.
func ParseStoredCron(expr string) (cron.Schedule, error) {
	if zone, fields := splitZone(strings.TrimSpace(expr)); shorthands[fields] != "" {
		if zone != "" {
			zone += " "
		}
		return ParseCron(zone + shorthands[fields])
	}
	return ParseCron(expr)
}

// splitZone splits a cron expression into its TZ= or CRON_TZ= prefix (""
// when it has none) and its fields, trimmed.
func splitZone(expr string) (zone, fields string) {
	if !strings.HasPrefix(expr, "TZ=") && !strings.HasPrefix(expr, "CRON_TZ=") {
		return "", strings.TrimSpace(expr)
	}
	zone, fields, _ = strings.Cut(expr, " ")
	return zone, strings.TrimSpace(fields)
}

// starBit is the cron library's mark of a field written as * or ?.
const starBit = uint64(1) << 63

// daysIn is the most days each month has (February's 29th comes in leap
// years).
var daysIn = [13]uint{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// firesSometime reports whether a cron matches some day: worked out from
// its fields, not by searching (the library's Next gives up after five
// years, and a 29th of February can be eight years away). Every field
// the parser accepts holds a value, every hour has its minutes, and every
// day of the week comes in every month, so a cron never fires only when
// it matches on its days of the month alone (its day of the week is *)
// and none of its months has any of them.
func firesSometime(s *cron.SpecSchedule) bool {
	// The library's rule: with a * on either day field, a day must match
	// both; with neither, either.
	if s.Dow&starBit == 0 || s.Dom&starBit != 0 {
		return true
	}
	for m := uint(1); m <= 12; m++ {
		if s.Month&(1<<m) == 0 {
			continue
		}
		for d := uint(1); d <= daysIn[m]; d++ {
			if s.Dom&(1<<d) != 0 {
				return true
			}
		}
	}
	return false
}
