// Runs every dashboard query of tapehouse through clickhouse-go as Grafana's ClickHouse data
// source (v4.20.0, which pins clickhouse-go v2.47.0) connects over HTTP: the plugin's connection
// options, its "Save & test" checks, Grafana's and the plugin's expansion (expand.go), each
// variable query then each panel target, with every value scanned as sqlds scans it. Writes what
// it saw as JSON for test/conformance/grafana.test.ts to judge. With -expand-only it runs nothing:
// it expands a fixed plan (fixed options and selections), for the viewer's expansion test.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

type Variable struct {
	Name       string   `json:"name"`
	Type       string   `json:"type"`
	Query      string   `json:"query"`
	Multi      bool     `json:"multi"`
	IncludeAll bool     `json:"includeAll"`
	Current    []string `json:"current"`
	// Options of a custom variable, or, in an expand-only plan, of a query variable.
	Options []string `json:"options"`
}

type Target struct {
	PanelID       int    `json:"panelId"`
	PanelTitle    string `json:"panelTitle"`
	PanelType     string `json:"panelType"`
	RefID         string `json:"refId"`
	RawSQL        string `json:"rawSql"`
	Format        int    `json:"format"`
	MaxDataPoints int    `json:"maxDataPoints"`
	MinInterval   string `json:"minInterval"`
}

type Dashboard struct {
	From      int64      `json:"from"` // epoch ms: the dashboard's time range
	To        int64      `json:"to"`
	UID       string     `json:"uid"`
	Title     string     `json:"title"`
	Variables []Variable `json:"variables"`
	Targets   []Target   `json:"targets"`
}

type Plan struct {
	Dashboards []Dashboard `json:"dashboards"`
}

type Column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	ScanType string `json:"scanType"`
}

type Query struct {
	Dashboard  string             `json:"dashboard"`
	Kind       string             `json:"kind"` // variable | target
	Name       string             `json:"name"` // variable name, or panel id + refId
	PanelID    int                `json:"panelId,omitempty"`
	PanelType  string             `json:"panelType,omitempty"`
	RefID      string             `json:"refId,omitempty"`
	IntervalMs int64              `json:"intervalMs"`
	Bindings   map[string]Binding `json:"bindings"`
	SQL        string             `json:"sql"`
	OK         bool               `json:"ok"`
	Error      string             `json:"error,omitempty"`
	Columns    []Column           `json:"columns,omitempty"`
	Rows       int                `json:"rows"`
	Millis     float64            `json:"ms"`
}

type Check struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	Note  string `json:"note,omitempty"`
}

type Report struct {
	Checks  []Check `json:"checks"`
	Queries []Query `json:"queries"`
}

func main() {
	addr := flag.String("addr", "", "host:port of the endpoint")
	planFile := flag.String("plan", "", "the plan (JSON) written by grafana-plan.ts")
	outFile := flag.String("out", "", "where to write the report (JSON)")
	expandOnly := flag.Bool("expand-only", false, "expand the plan without running anything")
	flag.Parse()
	var plan Plan
	raw, err := os.ReadFile(*planFile)
	must(err)
	must(json.Unmarshal(raw, &plan))

	report := Report{Checks: []Check{}, Queries: []Query{}}
	var db *sql.DB
	if !*expandOnly {
		db = openAsThePlugin(*addr, clickhouse.CompressionGZIP)
		defer db.Close()
		report.Checks = append(report.Checks, saveAndTest(db)...)
		report.Checks = append(report.Checks, lz4Check(*addr))
	}
	for _, dashboard := range plan.Dashboards {
		from, to := time.UnixMilli(dashboard.From).UTC(), time.UnixMilli(dashboard.To).UTC()
		bindings := map[string]Binding{}
		for _, variable := range dashboard.Variables {
			options := variable.Options
			if variable.Type == "query" {
				q := runQuery(db, dashboard, "variable", variable.Name, variable.Query, bindings, from, to, 0)
				q.Name = variable.Name
				report.Queries = append(report.Queries, q.Query)
				if db != nil {
					options = q.values
				}
			}
			bindings[variable.Name] = selection(variable, options)
		}
		for _, target := range dashboard.Targets {
			interval := calculateInterval(from, to, target.MaxDataPoints, target.MinInterval)
			q := runQuery(db, dashboard, "target", fmt.Sprintf("%d/%s", target.PanelID, target.RefID), target.RawSQL, bindings, from, to, interval)
			q.PanelID, q.PanelType, q.RefID = target.PanelID, target.PanelType, target.RefID
			report.Queries = append(report.Queries, q.Query)
		}
	}
	out, err := json.MarshalIndent(report, "", "  ")
	must(err)
	must(os.WriteFile(*outFile, append(out, '\n'), 0o644))
}

// openAsThePlugin: pkg/plugin/driver.go Connect, for protocol HTTP with the provisioned settings.
func openAsThePlugin(addr string, compression clickhouse.CompressionMethod) *sql.DB {
	db := clickhouse.OpenDB(&clickhouse.Options{
		Addr:     []string{addr},
		Auth:     clickhouse.Auth{Database: "tapehouse", Username: "grafana", Password: "grafana"},
		Protocol: clickhouse.HTTP,
		ClientInfo: clickhouse.ClientInfo{Products: []struct{ Name, Version string }{
			{Name: "grafana", Version: "12.0.0"}, {Name: "clickhouse-datasource", Version: "4.20.0"},
		}},
		Compression: &clickhouse.Compression{Method: compression},
		DialTimeout: 10 * time.Second,
		ReadTimeout: 60 * time.Second,
		Settings:    clickhouse.Settings{},
	})
	db.SetConnMaxLifetime(5 * time.Minute)
	db.SetMaxIdleConns(25)
	db.SetMaxOpenConns(50)
	return db
}

// saveAndTest: what "Save & test" and the editor ask first: Ping (SELECT 1 over HTTP), the
// version check for ad hoc filters, the server's time zone.
func saveAndTest(db *sql.DB) []Check {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	checks := []Check{}
	err := db.PingContext(ctx)
	checks = append(checks, check("ping", err, ""))
	var version string
	err = db.QueryRowContext(ctx, "SELECT version()").Scan(&version)
	checks = append(checks, check("version()", err, version))
	var tz string
	err = db.QueryRowContext(ctx, "SELECT timezone()").Scan(&tz)
	checks = append(checks, check("timezone()", err, tz))
	return checks
}

// lz4Check: clickhouse-go with LZ4 sends compress=1 and checks every block's CityHash128.
func lz4Check(addr string) Check {
	db := openAsThePlugin(addr, clickhouse.CompressionLZ4)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var count, sum uint64
	err := db.QueryRowContext(ctx, "SELECT count(), sum(length(s)) FROM (SELECT toString(number) AS s FROM numbers(1000000))").Scan(&count, &sum)
	if err == nil {
		rows, qerr := db.QueryContext(ctx, "SELECT number, toString(number) FROM numbers(300000)")
		if qerr != nil {
			err = qerr
		} else {
			n := 0
			for rows.Next() {
				var a uint64
				var b string
				if err = rows.Scan(&a, &b); err != nil {
					break
				}
				n++
			}
			if err == nil {
				err = rows.Err()
			}
			rows.Close()
			if err == nil && n != 300000 {
				err = fmt.Errorf("read %d rows of 300000 through LZ4 blocks", n)
			}
		}
	}
	return check("lz4 (compress=1, checksums verified)", err, fmt.Sprintf("count %d", count))
}

func check(name string, err error, note string) Check {
	if err != nil {
		return Check{Name: name, OK: false, Error: err.Error()}
	}
	return Check{Name: name, OK: true, Note: note}
}

type result struct {
	Query
	values []string
}

func runQuery(db *sql.DB, dashboard Dashboard, kind, name, raw string, vars map[string]Binding, from, to time.Time, intervalMs int64) result {
	bound := map[string]Binding{}
	for k, v := range vars {
		bound[k] = v
	}
	scoped := map[string]string{
		"__interval":    secondsToHms(float64(intervalMs) / 1000),
		"__interval_ms": fmt.Sprintf("%d", intervalMs),
		"__from":        fmt.Sprintf("%d", from.UnixMilli()),
		"__to":          fmt.Sprintf("%d", to.UnixMilli()),
	}
	q := Query{Dashboard: dashboard.UID, Kind: kind, Name: name, IntervalMs: intervalMs, Bindings: bound}
	frontend := replaceTemplate(applyConditionalAll(raw, vars), vars, scoped)
	expanded, err := expandBackend(frontend, from, to, intervalMs)
	if err != nil {
		q.Error = err.Error()
		return result{Query: q}
	}
	q.SQL = expanded
	if db == nil {
		q.OK = true
		return result{Query: q}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	values, err := scanAll(ctx, db, expanded, &q)
	q.Millis = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		q.Error = err.Error()
		return result{Query: q}
	}
	q.OK = true
	return result{Query: q, values: values}
}

// scanAll reads every value into a value of the column's ScanType, as sqlutil.FrameFromRows does;
// it returns the first column as text (a variable's options).
func scanAll(ctx context.Context, db *sql.DB, query string, q *Query) ([]string, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	for _, t := range types {
		q.Columns = append(q.Columns, Column{Name: t.Name(), Type: t.DatabaseTypeName(), ScanType: fmt.Sprint(t.ScanType())})
	}
	first := []string{}
	for rows.Next() {
		dest := make([]any, len(types))
		for i, t := range types {
			dest[i] = reflect.New(t.ScanType()).Interface()
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		q.Rows++
		if len(dest) > 0 {
			first = append(first, fmt.Sprint(reflect.ValueOf(dest[0]).Elem().Interface()))
		}
	}
	return first, rows.Err()
}

// selection: the variable's value when the dashboard loads, as the built-in viewer and Grafana
// pick it: the saved current value when the options still hold it, else All when offered, else
// the first option.
func selection(v Variable, options []string) Binding {
	offered := map[string]bool{}
	for _, o := range options {
		offered[o] = true
	}
	if len(v.Current) == 1 && v.Current[0] == "$__all" && v.IncludeAll {
		return Binding{Values: options, IsAll: true}
	}
	if len(v.Current) > 0 {
		kept := []string{}
		for _, c := range v.Current {
			if offered[c] {
				kept = append(kept, c)
			}
		}
		if len(kept) == len(v.Current) {
			if !v.Multi {
				kept = kept[:1]
			}
			return Binding{Values: kept}
		}
	}
	if v.IncludeAll {
		return Binding{Values: options, IsAll: true}
	}
	if len(options) > 0 {
		return Binding{Values: options[:1]}
	}
	return Binding{Values: []string{}}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
