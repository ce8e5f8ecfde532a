package tls

// simClient is one real client whose handshake the scan simulates: the
// versions, cipher suites (in its order) and groups its ClientHello
// offers, and the limits it puts on what the server chooses.
type simClient struct {
	name string
	// source says where the parameters come from: a ClientHello
	// captured from the client on Debian 12, or the vendor's
	// documentation of its defaults.
	source     string
	minVersion uint16
	maxVersion uint16
	suites     []uint16
	groups     []uint16
	minDHBits  int // 0: no lower limit
	maxDHBits  int // 0: no upper limit
}

// openssl3Suites are OpenSSL 3.0's default client suites, captured
// from curl 7.88.1 with OpenSSL 3.0 on Debian 12 (openssl s_client
// sends the same).
var openssl3Suites = []uint16{
	0x1302, 0x1303, 0x1301, 0xC02C, 0xC030, 0x009F, 0xCCA9, 0xCCA8, 0xCCAA, 0xC02B, 0xC02F, 0x009E, 0xC024, 0xC028,
	0x006B, 0xC023, 0xC027, 0x0067, 0xC00A, 0xC014, 0x0039, 0xC009, 0xC013, 0x0033, 0x009D, 0x009C, 0x003D, 0x003C,
	0x0035, 0x002F,
}

// openssl3Groups are OpenSSL 3.0's default groups, as captured.
var openssl3Groups = []uint16{29, 23, 30, 25, 24, 256, 257, 258, 259, 260}

// java8Suites are the JSSE (SunJSSE) default client suites of Java 8
// update 202, in the order its documentation lists them.
var java8Suites = []uint16{
	0xC02C, 0xC02B, 0xC030, 0x009D, 0xC02E, 0xC032, 0x009F, 0x00A3, 0xC02F, 0x009C, 0xC02D, 0xC031, 0x009E, 0x00A2,
	0xC024, 0xC028, 0x003D, 0xC026, 0xC02A, 0x006B, 0x006A, 0xC00A, 0xC014, 0x0035, 0xC005, 0xC00F, 0x0039, 0x0038,
	0xC023, 0xC027, 0x003C, 0xC025, 0xC029, 0x0067, 0x0040, 0xC009, 0xC013, 0x002F, 0xC004, 0xC00E, 0x0033, 0x0032,
}

// java17Suites are JSSE's default client suites of Java 11 to 17, as
// its documentation lists them.
var java17Suites = []uint16{
	0x1302, 0x1301, 0x1303, 0xC02C, 0xC02B, 0xCCA9, 0xC030, 0xCCA8, 0xC02F, 0x009F, 0xCCAA, 0x009E, 0xC024, 0xC028,
	0xC023, 0xC027, 0x006B, 0x0067, 0xC00A, 0xC014, 0xC009, 0xC013, 0x0039, 0x0033, 0x009D, 0x009C, 0x003D, 0x003C,
	0x0035, 0x002F,
}

// javaGroups are JSSE's default named groups from Java 11 (and 8u261).
var javaGroups = []uint16{29, 23, 24, 25, 30, 256, 257, 258, 259, 260}

// simClients are the clients of the client simulation, newest first
// within each family. Signature algorithms are the scan's own list for
// every client: the simulation judges versions, suites and groups.
var simClients = []simClient{
	{
		name: "Chromium 156 (Debian 12)", source: "ClientHello captured from /usr/bin/chromium 156 on Debian 12 (GREASE values left out)",
		minVersion: versionTLS12, maxVersion: versionTLS13,
		suites: []uint16{0x1301, 0x1302, 0x1303, 0xC02B, 0xC02F, 0xC02C, 0xC030, 0xCCA9, 0xCCA8, 0xC013, 0xC014, 0x009C, 0x009D, 0x002F, 0x0035},
		groups: []uint16{0x11EC, 29, 23, 24},
	},
	{
		name: "Firefox 128 ESR", source: "Firefox's default ClientHello (security.tls.version.min 3, NSS with Firefox's suite policy)",
		minVersion: versionTLS12, maxVersion: versionTLS13,
		suites: []uint16{0x1301, 0x1303, 0x1302, 0xC02B, 0xC02F, 0xCCA9, 0xCCA8, 0xC02C, 0xC030, 0xC00A, 0xC009, 0xC013, 0xC014, 0x009C, 0x009D, 0x002F, 0x0035},
		groups: []uint16{29, 23, 24, 25, 256, 257},
	},
	{
		name: "Safari 17 (macOS 14)", source: "Safari's default ClientHello on macOS 14 (Apple's Network.framework/BoringSSL defaults)",
		minVersion: versionTLS10, maxVersion: versionTLS13,
		suites: []uint16{0x1301, 0x1302, 0x1303, 0xC02C, 0xC02B, 0xCCA9, 0xC030, 0xC02F, 0xCCA8, 0xC00A, 0xC009, 0xC014, 0xC013, 0x009D, 0x009C, 0x0035, 0x002F, 0xC008, 0xC012, 0x000A},
		groups: []uint16{29, 23, 24, 25},
	},
	{
		name: "Android 7.0", source: "Android 7.0 (API 24) SSLSocket defaults, Conscrypt/BoringSSL, as the Android SSLSocket documentation lists them",
		minVersion: versionTLS10, maxVersion: versionTLS12,
		suites: []uint16{0xC02B, 0xC02C, 0xCCA9, 0xC02F, 0xC030, 0xCCA8, 0xC013, 0xC014, 0x009C, 0x009D, 0x002F, 0x0035},
		groups: []uint16{29, 23, 24},
	},
	{
		name: "Android 4.4.2", source: "Android 4.4 (API 19) browser ClientHello: OpenSSL-based Conscrypt defaults, as the Android SSLSocket documentation lists them",
		minVersion: versionSSL3, maxVersion: versionTLS12,
		suites: []uint16{0xC030, 0xC02C, 0xC014, 0xC00A, 0x009F, 0x006B, 0x0039, 0x009D, 0x003D, 0x0035, 0xC012, 0xC008, 0x0016, 0x000A,
			0xC02F, 0xC02B, 0xC027, 0xC023, 0xC013, 0xC009, 0x009E, 0x0067, 0x0033, 0x009C, 0x003C, 0x002F, 0xC011, 0xC007, 0x0005, 0x0004},
		groups: []uint16{25, 24, 23},
	},
	{
		name: "Java 17", source: "JSSE defaults of Java 17 (TLS 1.0 and 1.1 disabled by jdk.tls.disabledAlgorithms), from the JSSE documentation",
		minVersion: versionTLS12, maxVersion: versionTLS13, suites: java17Suites, groups: javaGroups, minDHBits: 1024,
	},
	{
		name: "Java 8u202", source: "JSSE defaults of Java 8 update 202, from the JSSE documentation (no TLS 1.3, no X25519)",
		minVersion: versionTLS10, maxVersion: versionTLS12, suites: java8Suites,
		groups: []uint16{23, 24, 25, 9, 10, 11, 12, 13, 14, 22}, minDHBits: 1024,
	},
	{
		name: "OpenSSL 3.0 (Debian 12)", source: "ClientHello captured from openssl s_client 3.0 on Debian 12",
		minVersion: versionTLS10, maxVersion: versionTLS13, suites: openssl3Suites, groups: openssl3Groups,
	},
	{
		name: "curl 7.88 (Debian 12)", source: "ClientHello captured from curl 7.88.1 on Debian 12: OpenSSL 3.0's defaults",
		minVersion: versionTLS10, maxVersion: versionTLS13, suites: openssl3Suites, groups: openssl3Groups,
	},
	{
		name: "OpenSSL 1.0.2", source: "openssl s_client 1.0.2's DEFAULT list (ALL:!EXPORT:!aNULL:!eNULL:!SSLv2) and its default curves",
		minVersion: versionSSL3, maxVersion: versionTLS12,
		suites: []uint16{
			0xC030, 0xC02C, 0xC028, 0xC024, 0xC014, 0xC00A, 0x00A5, 0x00A3, 0x00A1, 0x009F, 0x006B, 0x006A, 0x0069, 0x0068,
			0x0039, 0x0038, 0x0037, 0x0036, 0x0088, 0x0087, 0x0086, 0x0085, 0xC032, 0xC02E, 0xC02A, 0xC026, 0xC00F, 0xC005,
			0x009D, 0x003D, 0x0035, 0x0084, 0xC02F, 0xC02B, 0xC027, 0xC023, 0xC013, 0xC009, 0x00A4, 0x00A2, 0x00A0, 0x009E,
			0x0067, 0x0040, 0x003F, 0x003E, 0x0033, 0x0032, 0x0031, 0x0030, 0x009A, 0x0099, 0x0098, 0x0097, 0x0045, 0x0044,
			0x0043, 0x0042, 0xC031, 0xC02D, 0xC029, 0xC025, 0xC00E, 0xC004, 0x009C, 0x003C, 0x002F, 0x0096, 0x0041, 0xC012,
			0xC008, 0x0016, 0x0013, 0x0010, 0x000D, 0xC00D, 0xC003, 0x000A, 0xC011, 0xC007, 0xC00C, 0xC002, 0x0005, 0x0004,
		},
		groups: []uint16{14, 13, 25, 28, 11, 12, 27, 24, 9, 10, 26, 22, 23, 8, 6, 7, 20, 21, 4, 5, 18, 19, 1, 2, 3, 15, 16, 17},
	},
	{
		name: "IE 11 (Windows 7)", source: "Schannel's default suite order on Windows 7 with TLS 1.1 and 1.2 enabled (Microsoft: TLS Cipher Suites in Windows 7)",
		minVersion: versionTLS10, maxVersion: versionTLS12,
		suites: []uint16{0xC028, 0xC027, 0xC014, 0xC013, 0x009F, 0x009E, 0x009D, 0x009C, 0x003D, 0x003C, 0x0035, 0x002F,
			0xC02C, 0xC02B, 0xC024, 0xC023, 0xC00A, 0xC009, 0x006A, 0x0040, 0x0038, 0x0032, 0x000A, 0x0013},
		groups: []uint16{23, 24}, minDHBits: 1024, maxDHBits: 4096,
	},
	{
		name: "GnuTLS 3.7 (Debian 12)", source: "ClientHello captured from gnutls-cli 3.7.9 on Debian 12 (priority NORMAL)",
		minVersion: versionTLS10, maxVersion: versionTLS13,
		suites: []uint16{0x1302, 0x1303, 0x1301, 0x1304, 0xC02C, 0xCCA9, 0xC0AD, 0xC00A, 0xC02B, 0xC0AC, 0xC009, 0xC030, 0xCCA8,
			0xC014, 0xC02F, 0xC013, 0x009D, 0xC09D, 0x0035, 0x009C, 0xC09C, 0x002F, 0x009F, 0xCCAA, 0xC09F, 0x0039, 0x009E, 0xC09E, 0x0033},
		groups: []uint16{23, 24, 25, 29, 30, 256, 257, 258, 259, 260},
	},
}
