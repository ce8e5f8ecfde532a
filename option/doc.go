// Package option holds the value types every operation's options are
// written in, so that an option means the same in the library, in JSON
// and on the command line wherever it is declared: Toggle, an on/off
// option whose zero value is the documented default, and Seconds, the one
// unit of time.
//
// The root package sitediag and the mechanism packages whose options are
// the API's (browser.ShotOptions) declare their options with them; the
// root re-exports them as sitediag.Toggle, sitediag.Seconds, sitediag.On
// and sitediag.Off.
package option
