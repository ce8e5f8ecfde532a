package httpapi_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/sitediag/sitediag/internal/apitest"
)

// TestMain runs the tests, then scrapes every test API's metrics: each
// operation the tests called must show in them (apitest.SuiteMetrics).
func TestMain(m *testing.M) {
	code := m.Run()
	report, err := apitest.SuiteMetrics()
	if testing.Verbose() || err != nil {
		fmt.Print("metrics after the suite:\n" + report)
	}
	if err != nil {
		fmt.Println("FAIL: metrics:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
