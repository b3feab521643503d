package main

// Grafana's and the ClickHouse data source's expansion of a dashboard query, written from their
// source so that the built-in viewer's expansion can be checked against it:
//   - the interval: Grafana's rangeutil.calculateInterval / roundInterval / secondsToHms
//     (packages/grafana-data/src/datetime/rangeutil.ts);
//   - $__conditionalAll: the plugin's frontend, CHDatasource.applyConditionalAll (v4.20.0);
//   - ${var:singlequote}, $__interval, $__from, …: Grafana's template service and its
//     singlequote / sqlstring formats;
//   - $__timeFilter, $__timeInterval, $__fromTime, …: the plugin's backend, pkg/macros (v4.20.0).

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
)

// roundInterval: rangeutil.roundInterval.
func roundInterval(interval float64) int64 {
	bands := []struct {
		below float64
		step  int64
	}{
		{10, 1}, {15, 10}, {35, 20}, {75, 50}, {150, 100}, {350, 200}, {750, 500}, {1500, 1000}, {3500, 2000},
		{7500, 5000}, {12500, 10000}, {17500, 15000}, {25000, 20000}, {45000, 30000}, {90000, 60000},
		{210000, 120000}, {450000, 300000}, {750000, 600000}, {1050000, 900000}, {1500000, 1200000},
		{2700000, 1800000}, {5400000, 3600000}, {9000000, 7200000}, {16200000, 10800000}, {32400000, 21600000},
		{86400000, 43200000}, {604800000, 86400000}, {1814400000, 604800000}, {3628800000, 2592000000},
	}
	for _, b := range bands {
		if interval < b.below {
			return b.step
		}
	}
	return 31536000000
}

// intervalToMs: rangeutil.describeInterval for "1m", "30s", "500ms", a bare number of seconds.
func intervalToMs(text string) int64 {
	m := regexp.MustCompile(`^(-?\d+(?:\.\d+)?)(ms|[Mwdhmsy])?`).FindStringSubmatch(text)
	if m == nil {
		return 1
	}
	var count float64
	fmt.Sscan(m[1], &count)
	seconds := map[string]float64{"y": 31536000, "M": 2592000, "w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1, "ms": 0.001, "": 1}[m[2]]
	return int64(math.Trunc(count) * seconds * 1000)
}

// calculateInterval: rangeutil.calculateInterval.
func calculateInterval(from, to time.Time, resolution int, lowLimit string) int64 {
	low := int64(1)
	if lowLimit != "" {
		low = intervalToMs(lowLimit)
	}
	interval := roundInterval(float64(to.UnixMilli()-from.UnixMilli()) / float64(resolution))
	if low > interval {
		interval = low
	}
	return interval
}

// secondsToHms: rangeutil.secondsToHms, which gives $__interval its text.
func secondsToHms(seconds float64) string {
	units := []struct {
		name string
		size float64
	}{{"y", 31536000}, {"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}}
	rest := seconds
	for _, u := range units {
		if whole := math.Floor(rest / u.size); whole > 0 {
			return fmt.Sprintf("%d%s", int64(whole), u.name)
		}
		rest = math.Mod(rest, u.size)
	}
	if ms := math.Floor(seconds * 1000); ms > 0 {
		return fmt.Sprintf("%dms", int64(ms))
	}
	return "less than a millisecond"
}

// Binding is a variable's state as the template service sees it.
type Binding struct {
	Values []string `json:"values"`
	IsAll  bool     `json:"isAll"`
}

// current is Grafana's current.value.toString(): '$__all' for All, the values joined by commas.
func (b Binding) current() string {
	if b.IsAll {
		return "$__all"
	}
	return strings.Join(b.Values, ",")
}

// macroArgs: the plugin's getMacroArgs (brackets and commas only, no quotes, arguments untrimmed).
func macroArgs(query string, open int) []string {
	args := []string{}
	depth := 0
	start := open + 1
	for i := open; i < len(query); i++ {
		switch query[i] {
		case '(':
			depth++
		case ')':
			depth--
		}
		if query[i] == ',' && depth == 1 {
			args = append(args, query[start:i])
			start = i + 1
		}
		if depth == 0 {
			return append(args, query[start:i])
		}
	}
	return []string{}
}

var conditionalVar = regexp.MustCompile(`\$\{(\w+)\}|\$(\w+)`)

// applyConditionalAll: CHDatasource.applyConditionalAll.
func applyConditionalAll(raw string, vars map[string]Binding) string {
	const macro = "$__conditionalAll("
	for at := strings.LastIndex(raw, macro); at != -1; at = strings.LastIndex(raw, macro) {
		params := macroArgs(raw, at+len(macro)-1)
		if len(params) != 2 {
			return raw
		}
		phrase := params[0]
		if m := conditionalVar.FindStringSubmatch(strings.TrimSpace(params[1])); m != nil {
			name := m[1] + m[2]
			if b, ok := vars[name]; ok {
				if v := b.current(); v == "" || v == "$__all" {
					phrase = "1=1"
				}
			}
		}
		raw = strings.Replace(raw, macro+params[0]+","+params[1]+")", phrase, 1)
	}
	return raw
}

// The template service's variable syntax: $name, [[name:format]], ${name:format}.
var templateVariable = regexp.MustCompile(`\$(\w+)|\[\[(\w+?)(?::(\w+))?\]\]|\$\{(\w+)(?:\.([^:^\}]+))?(?::([^\}]+))?\}`)

// replaceTemplate: templateSrv.replace with the data source's own format for a bare $var
// (CHDatasource.format: a list as 'a','b', a single value as it is) and Grafana's formats.
func replaceTemplate(raw string, vars map[string]Binding, scoped map[string]string) string {
	return templateVariable.ReplaceAllStringFunc(raw, func(match string) string {
		m := templateVariable.FindStringSubmatch(match)
		name, format := m[1]+m[2]+m[4], m[3]+m[6]
		if v, ok := scoped[name]; ok {
			return v
		}
		b, ok := vars[name]
		if !ok {
			return match
		}
		switch format {
		case "singlequote":
			quoted := make([]string, len(b.Values))
			for i, v := range b.Values {
				quoted[i] = "'" + strings.ReplaceAll(v, "'", `\'`) + "'"
			}
			return strings.Join(quoted, ",")
		case "sqlstring":
			quoted := make([]string, len(b.Values))
			for i, v := range b.Values {
				quoted[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
			}
			return strings.Join(quoted, ",")
		case "":
			if len(b.Values) == 1 {
				return b.Values[0]
			}
			return "'" + strings.Join(b.Values, "','") + "'"
		default:
			return strings.Join(b.Values, ",")
		}
	})
}

// Backend macros: pkg/macros of the plugin (v4.20.0).
func toDateTime(t time.Time) string { return fmt.Sprintf("toDateTime(%d)", t.Unix()) }
func toDateTime64(t time.Time) string {
	return fmt.Sprintf("fromUnixTimestamp64Milli(%d)", t.UnixMilli())
}
func toDate(t time.Time) string { return fmt.Sprintf("toDate('%s')", t.UTC().Format("2006-01-02")) }

func backendMacro(name string, args []string, from, to time.Time, intervalMs int64) (string, bool) {
	seconds := int64(math.Max(float64(intervalMs)/1000, 1))
	one := func(build func(string) string) (string, bool) {
		if len(args) != 1 {
			return "", false
		}
		return build(args[0]), true
	}
	switch name {
	case "fromTime":
		return toDateTime(from), true
	case "toTime":
		return toDateTime(to), true
	case "fromTime_ms":
		return toDateTime64(from), true
	case "toTime_ms":
		return toDateTime64(to), true
	case "timeFilter":
		return one(func(c string) string {
			return fmt.Sprintf("%s >= %s AND %s <= %s", c, toDateTime(from), c, toDateTime(to))
		})
	case "timeFilter_ms":
		return one(func(c string) string {
			return fmt.Sprintf("%s >= %s AND %s <= %s", c, toDateTime64(from), c, toDateTime64(to))
		})
	case "dateFilter":
		return one(func(c string) string { return fmt.Sprintf("%s >= %s AND %s <= %s", c, toDate(from), c, toDate(to)) })
	case "timeInterval":
		return one(func(c string) string {
			return fmt.Sprintf("toStartOfInterval(toDateTime(%s), INTERVAL %d second)", c, seconds)
		})
	case "timeInterval_ms":
		ms := int64(math.Max(float64(intervalMs), 1))
		return one(func(c string) string {
			return fmt.Sprintf("toStartOfInterval(toDateTime64(%s, 3), INTERVAL %d millisecond)", c, ms)
		})
	case "interval_s":
		return fmt.Sprintf("%d", seconds), true
	case "timeFrom":
		return one(func(c string) string { return fmt.Sprintf("%s >= %s", c, toDateTime(from)) })
	case "timeTo":
		return one(func(c string) string { return fmt.Sprintf("%s <= %s", c, toDateTime(to)) })
	}
	return "", false
}

var macroName = regexp.MustCompile(`\$__(\w+)`)

// expandBackend: macropro.Interpolate with the plugin's macros: `$__name` or `$__name(args)`,
// arguments split at top-level commas outside quotes (backslash escapes honoured) and trimmed;
// an unknown macro is left as it is.
func expandBackend(sql string, from, to time.Time, intervalMs int64) (string, error) {
	var out strings.Builder
	pos := 0
	for _, loc := range macroName.FindAllStringSubmatchIndex(sql, -1) {
		if loc[0] < pos {
			continue
		}
		name := sql[loc[2]:loc[3]]
		end := loc[1]
		var args []string
		if end < len(sql) && sql[end] == '(' {
			parsed, next, err := quotedArgs(sql, end)
			if err != nil {
				return "", err
			}
			args, end = parsed, next
		}
		value, ok := backendMacro(name, args, from, to, intervalMs)
		if !ok {
			continue
		}
		out.WriteString(sql[pos:loc[0]])
		out.WriteString(value)
		pos = end
	}
	out.WriteString(sql[pos:])
	return out.String(), nil
}

func quotedArgs(sql string, open int) ([]string, int, error) {
	args := []string{}
	depth := 0
	start := open + 1
	for i := open; i < len(sql); i++ {
		switch c := sql[i]; c {
		case '\'', '"', '`':
			for i++; i < len(sql) && sql[i] != c; i++ {
				if sql[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return append(args, strings.TrimSpace(sql[start:i])), i + 1, nil
			}
		case ',':
			if depth == 1 {
				args = append(args, strings.TrimSpace(sql[start:i]))
				start = i + 1
			}
		}
	}
	return nil, 0, fmt.Errorf("unclosed bracket after %s", sql[max(0, open-20):open+1])
}
