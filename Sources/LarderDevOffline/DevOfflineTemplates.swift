import Mustache

/// The Mustache templates of /dev/offline, compiled once when the server starts.
///
/// Every `{{value}}` is HTML-escaped by swift-mustache (`<`, `>`, `&`, `"`, `'`), in text and in
/// attribute values alike; no template uses triple braces, so nothing a URL, a header or a game's
/// `metadata.json` holds can become markup. The pages need no JavaScript and load nothing else:
/// the style sheet is inline, and tables scroll sideways on a narrow screen.
struct DevOfflineTemplates: Sendable {
    private let library: MustacheLibrary

    /// The template names.
    enum Page: String, CaseIterable {
        case overview
        case entries
        case game
        case notice
    }

    /// Compiles the templates; throws only if a template is malformed (a bug the tests catch).
    init() throws {
        var library = MustacheLibrary()
        try library.register(Self.head, named: "head")
        try library.register(Self.top, named: "top")
        try library.register(Self.foot, named: "foot")
        try library.register(Self.entriesTable, named: "entriesTable")
        try library.register(Self.addToPrecache, named: "addToPrecache")
        try library.register(Self.missTable, named: "missTable")
        try library.register(Self.extraTable, named: "extraTable")
        try library.register(Self.seriesSection, named: "seriesSection")
        try library.register(Self.keptNoStoreSection, named: "keptNoStoreSection")
        try library.register(Self.overview, named: Page.overview.rawValue)
        try library.register(Self.entries, named: Page.entries.rawValue)
        try library.register(Self.game, named: Page.game.rawValue)
        try library.register(Self.notice, named: Page.notice.rawValue)
        self.library = library
    }

    /// Renders `page` with `values` (dictionaries of strings, numbers, booleans and arrays of them).
    func render(_ page: Page, _ values: [String: Any]) -> String {
        self.library.render(values, withTemplate: page.rawValue) ?? ""
    }

    // MARK: - Shared parts

    static let head = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light">
        <link rel="icon" href="data:,">
        <title>{{title}} · Larder</title>
        <style>
        :root{--ok:#1a7f37;--ok-bg:#dafbe1;--bad:#cf222e;--bad-bg:#ffebe9;--warn:#9a6700;--warn-bg:#fff8c5;
        --muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--ink:#1f2328;--link:#0969da}
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%}
        body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",sans-serif;color:var(--ink);background:#fff}
        a{color:var(--link)}
        code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
        header.top{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem 1rem;padding:.6rem 1rem;background:#24292f;color:#fff}
        header.top a{color:#fff;text-decoration:none}
        .brand{font-weight:700;font-size:1.1rem}.brand span{font-weight:400;opacity:.75}
        .state{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
        .state .why{font-size:.85rem;opacity:.85}
        main{max-width:76rem;margin:0 auto;padding:.5rem 1rem 2rem}
        h1{font-size:1.35rem;margin:1rem 0 .25rem}
        h2{font-size:1.1rem;margin:1.6rem 0 .6rem;padding-bottom:.3rem;border-bottom:1px solid var(--line)}
        h2 small,h1 small{font-weight:400;color:var(--muted);font-size:.85rem}
        h3{font-size:1rem;margin:1.2rem 0 .4rem}
        p{margin:.4rem 0}
        .muted{color:var(--muted)}.small{font-size:.85rem}
        .pill{display:inline-block;padding:.05rem .55rem;border-radius:999px;font-weight:600;font-size:.8rem;white-space:nowrap}
        .pill.online{background:var(--ok-bg);color:var(--ok)}.pill.offline{background:var(--bad-bg);color:var(--bad)}
        .pill.ok,.pill.cached,.pill.ready,.pill.fresh{background:var(--ok-bg);color:var(--ok)}
        .pill.bad,.pill.failed,.pill.missing,.pill.partial,.pill.backing-off{background:var(--bad-bg);color:var(--bad)}
        .pill.warn,.pill.failing,.pill.excluded,.pill.refused,.pill.stale,.pill.offline-miss,.pill.pending,.pill.dead-letter{background:var(--warn-bg);color:var(--warn)}
        .pill.skipped,.pill.runtime,.pill.bypass,.pill.never{background:var(--soft);color:var(--muted);border:1px solid var(--line)}
        .pill.precached,.pill.hit{background:#ddf4ff;color:#0550ae}
        .pill.miss{background:var(--soft);color:var(--ink);border:1px solid var(--line)}
        .pill.error{background:var(--bad-bg);color:var(--bad)}
        .flash{background:#ddf4ff;border:1px solid #54aeff;border-radius:6px;padding:.5rem .75rem;margin:.75rem 0}
        .notice{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem}
        .summary{font-size:1rem;margin:.3rem 0 .8rem}
        ul.games{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(19rem,1fr));gap:.75rem}
        .game{border:1px solid var(--line);border-left:6px solid var(--bad);border-radius:8px;padding:.6rem .8rem;background:#fff;min-width:0}
        .game.ready{border-left-color:var(--ok)}.game.skipped{border-left-color:var(--line)}
        .game .title{line-height:1.5}
        .game .title a{font-weight:600;font-size:1.02rem;overflow-wrap:anywhere;margin-right:.35rem}
        .mark{font-weight:700;font-size:1.05rem;width:1.2rem;display:inline-block}
        .game.ready .mark{color:var(--ok)}.game.not-ready .mark{color:var(--bad)}.game.skipped .mark{color:var(--muted)}
        .game .root{font-size:.8rem;color:var(--muted);overflow-wrap:anywhere}
        .game .facts{font-size:.88rem;margin:.25rem 0}
        .game .error{font-size:.85rem;color:var(--bad);overflow-wrap:anywhere}
        .game ul.missing{margin:.3rem 0;padding-left:1.1rem;font-size:.82rem}
        .game ul.missing li{overflow-wrap:anywhere}
        .actions{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin-top:.45rem}
        form.inline{display:inline;margin:0}
        button,select,input[type=search]{font:inherit;font-size:.88rem;border:1px solid var(--line);border-radius:6px;padding:.3rem .65rem;background:var(--soft);color:var(--ink)}
        button{cursor:pointer}button:hover{background:#eef1f4}
        button.danger{color:var(--bad)}button.small{padding:.1rem .45rem;font-size:.8rem}
        header.top button{background:#fff}
        .stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));gap:.5rem}
        .stat{background:var(--soft);border-radius:8px;padding:.45rem .7rem}
        .stat b{display:block;font-size:1.25rem;line-height:1.3}
        .stat span{font-size:.8rem;color:var(--muted)}
        .bar{height:.55rem;background:var(--line);border-radius:4px;overflow:hidden;margin:.35rem 0}
        .bar span{display:block;height:100%;background:var(--ok)}.bar.full span{background:var(--bad)}
        .scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid var(--line);border-radius:8px}
        table{border-collapse:collapse;width:100%;font-size:.86rem}
        th,td{text-align:left;padding:.35rem .55rem;border-bottom:1px solid var(--line);vertical-align:top;white-space:nowrap}
        th{background:var(--soft);font-weight:600}
        tr:last-child td{border-bottom:0}
        td.url{white-space:normal;overflow-wrap:anywhere;min-width:14rem;max-width:38rem}
        td.reason{white-space:normal;overflow-wrap:anywhere;min-width:12rem;max-width:30rem}
        .num{text-align:right;font-variant-numeric:tabular-nums}
        form.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:.5rem 0 .8rem}
        form.search label{display:flex;flex-direction:column;font-size:.8rem;color:var(--muted);gap:.15rem}
        form.search input[type=search]{min-width:15rem;max-width:100%}
        nav.pager{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between;margin:.7rem 0}
        dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem .9rem;margin:.5rem 0}
        dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
        footer{color:var(--muted);font-size:.8rem;margin-top:2rem}
        @media (max-width:480px){main{padding:.25rem .6rem 1.5rem}h2{font-size:1.02rem}ul.games{grid-template-columns:1fr}
        dl.facts{grid-template-columns:1fr}dl.facts dt{margin-top:.35rem}}
        </style></head>
        """

    static let top = """
        <header class="top">
        <a class="brand" href="/dev/offline">Larder <span>/dev/offline</span></a>
        <div class="state">
        {{#offline}}<span class="pill offline">Offline mode</span><span class="why">never contacts the network</span>{{/offline}}
        {{#unreachable}}<span class="pill backing-off">{{label}}</span><span class="why" title="Their last connection failed: Larder answers them from the cache">{{names}}</span>{{/unreachable}}
        {{#online}}<span class="pill online">Online</span>{{/online}}
        <form class="inline" method="post" action="/dev/offline/actions/offline">
        <input type="hidden" name="offline" value="{{toggleValue}}"><input type="hidden" name="return" value="{{returnPath}}">
        <button type="submit">{{toggleLabel}}</button>
        </form>
        </div>
        </header>
        <main>
        {{#flash}}<p class="flash" role="status">{{flash}}</p>{{/flash}}
        """

    static let foot = """
        <footer>Generated <time datetime="{{generatedISO}}">{{generatedExact}}</time> by Larder, your local caching proxy ·
        <a href="/dev/offline.json">JSON</a> · <a href="/metrics">metrics</a> · <a href="/proxy.pac">proxy.pac</a></footer>
        </main>
        </body></html>

        """

    static let entriesTable = """
        <div class="scroll"><table>
        <thead><tr><th>URL</th><th>Status</th><th>Type</th><th class="num">Size</th><th>Stored</th><th>Last served</th><th>Kind</th><th></th></tr></thead>
        <tbody>
        {{#entryRows}}<tr>
        <td class="url mono">{{url}}</td>
        <td class="num">{{status}}</td>
        <td>{{contentType}}</td>
        <td class="num">{{size}}</td>
        <td><time datetime="{{storedISO}}" title="{{storedExact}}">{{storedRelative}}</time></td>
        <td>{{#served}}<time datetime="{{servedISO}}" title="{{servedExact}}">{{servedRelative}}</time>{{/served}}{{^served}}<span class="muted">not yet</span>{{/served}}</td>
        <td><span class="pill {{kind}}">{{kind}}</span></td>
        <td><form class="inline" method="post" action="/dev/offline/actions/purge-entry"><input type="hidden" name="key" value="{{key}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="danger small" type="submit" title="Remove this entry from the cache">Purge</button></form></td>
        </tr>
        {{/entryRows}}
        </tbody></table></div>
        """

    /// The button that adds an offline miss's URL to precache (with its game when it has one).
    static let addToPrecache = """
        <form class="inline" method="post" action="/dev/offline/actions/add-to-precache"><input type="hidden" name="url" value="{{url}}"><input type="hidden" name="game" value="{{game}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="small" type="submit" title="Precache this URL now, and with every precache run of its game">Add to precache</button></form>
        """

    static let missTable = """
        <div class="scroll"><table>
        <thead><tr><th>Last missed</th><th>Method</th><th>URL</th><th class="num">Count</th><th>Why</th><th>Referer</th><th></th></tr></thead>
        <tbody>
        {{#missRows}}<tr>
        <td><time datetime="{{lastSeenISO}}" title="{{lastSeenExact}}">{{lastSeenRelative}}</time></td>
        <td>{{method}}</td>
        <td class="url mono">{{url}}{{#note}}<div class="small">{{note}}</div>{{/note}}</td>
        <td class="num">{{count}}</td>
        <td><span class="pill offline-miss">{{reason}}</span></td>
        <td class="url mono small">{{referer}}</td>
        <td>{{#canPrecache}}{{> addToPrecache}}{{/canPrecache}}{{#canAnswerOffline}}<form class="inline" method="post" action="/dev/offline/actions/answer-offline"><input type="hidden" name="url" value="{{url}}"><input type="hidden" name="method" value="{{method}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="small" type="submit" title="Keep these requests' answers by their bodies from the next online visit, and answer them when the origin cannot">Answer offline</button></form>{{/canAnswerOffline}}</td>
        </tr>
        {{/missRows}}
        </tbody></table></div>
        """

    static let extraTable = """
        <div class="scroll"><table>
        <thead><tr><th>URL</th><th>Precached with</th><th>State</th><th>Reason</th><th>Added</th><th></th></tr></thead>
        <tbody>
        {{#extraRows}}<tr>
        <td class="url mono">{{url}}</td>
        <td>{{#gameDetail}}<a href="{{gameDetail}}">{{gameName}}</a>{{/gameDetail}}{{^gameDetail}}{{gameName}}{{/gameDetail}}</td>
        <td><span class="pill {{state}}">{{state}}</span></td>
        <td class="reason">{{reason}}</td>
        <td><time datetime="{{addedISO}}" title="{{addedExact}}">{{addedRelative}}</time></td>
        <td><form class="inline" method="post" action="/dev/offline/actions/remove-extra-url"><input type="hidden" name="url" value="{{url}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="small danger" type="submit" title="Stop precaching this URL (what is cached stays until purged)">Remove</button></form></td>
        </tr>
        {{/extraRows}}
        </tbody></table></div>
        """

    // MARK: - Pages

    static let overview = """
        {{> head}}
        <body>
        {{> top}}
        <h1>Offline readiness</h1>
        {{#readySummary}}<p class="summary">{{readySummary}}</p>{{/readySummary}}

        <h2 id="games">Games <small>{{gamesNote}}</small></h2>
        {{^gameCards}}<p class="notice">No game is precached yet. Run <code>larder precache games.txt</code>, or POST the URLs to <code>/dev/offline/precache</code>.</p>{{/gameCards}}
        <ul class="games">
        {{#gameCards}}
        <li class="game {{cardClass}}">
        <div class="title"><span class="mark" aria-hidden="true">{{mark}}</span><a href="{{detail}}">{{name}}</a><span class="pill {{state}}">{{readiness}}</span></div>
        <div class="root mono">{{root}}</div>
        <div class="facts">{{facts}} · precached <time datetime="{{lastPrecacheISO}}" title="{{lastPrecacheExact}}">{{lastPrecacheRelative}}</time></div>
        {{#lastError}}<div class="error">Last error: {{lastError}}</div>{{/lastError}}
        {{#hasMissing}}<ul class="missing">{{#missingFiles}}<li><span class="mono">{{url}}</span>: {{why}}</li>{{/missingFiles}}</ul>{{/hasMissing}}
        {{#moreMissing}}<div class="small"><a href="{{detail}}">{{moreMissing}}</a></div>{{/moreMissing}}
        {{#offlineMissNote}}<div class="error">{{offlineMissNote}}</div>
        <ul class="missing">{{#offlineMissRows}}<li><span class="mono">{{url}}</span> {{#canPrecache}}{{> addToPrecache}}{{/canPrecache}}</li>{{/offlineMissRows}}</ul>{{/offlineMissNote}}
        <div class="actions">
        <a class="small" href="{{detail}}">Files</a>
        <form class="inline" method="post" action="/dev/offline/actions/precache-game"><input type="hidden" name="game" value="{{slug}}"><input type="hidden" name="return" value="{{detail}}"><button class="small" type="submit">Precache again</button></form>
        <form class="inline" method="post" action="/dev/offline/actions/purge-game"><input type="hidden" name="game" value="{{slug}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="small danger" type="submit">Purge</button></form>
        </div>
        </li>
        {{/gameCards}}
        </ul>

        {{> seriesSection}}

        {{#hasOfflineMisses}}
        <h2 id="offline-misses">Offline misses <small>{{missesNote}}</small></h2>
        {{^missGroups}}<p class="muted">None: every request the origin could not answer was answered from the cache.</p>{{/missGroups}}
        {{#missGroups}}
        <h3><span class="mono">{{origin}}</span>{{#gameName}} · <a href="{{gameDetail}}">{{gameName}}</a>{{/gameName}}</h3>
        {{> missTable}}
        {{/missGroups}}
        {{#hasBrowserMisses}}
        <h3 id="browser-misses">The browser's own requests <small>no page asked for them; not the app's misses</small></h3>
        <div class="scroll"><table>
        <thead><tr><th>Last missed</th><th>Method</th><th>URL</th><th class="num">Count</th><th>Why</th></tr></thead>
        <tbody>
        {{#browserMissRows}}<tr><td><time datetime="{{lastSeenISO}}" title="{{lastSeenExact}}">{{lastSeenRelative}}</time></td><td>{{method}}</td><td class="url mono">{{url}}{{#note}}<div class="small">{{note}}</div>{{/note}}</td><td class="num">{{count}}</td><td><span class="pill offline-miss">{{reason}}</span></td></tr>
        {{/browserMissRows}}
        </tbody></table></div>
        {{/hasBrowserMisses}}
        {{/hasOfflineMisses}}

        {{#hasAnsweredOffline}}
        <h2 id="answer-offline">Answered offline <small>reads sent as POST kept by their bodies, added here with Answer offline; in {{answeredOfflineFile}}, after the config file's routes</small></h2>
        {{#answeredOfflineProblem}}<div class="error">{{answeredOfflineProblem}}</div>{{/answeredOfflineProblem}}
        <ul class="missing">{{#answeredOfflineRows}}<li><span class="mono">{{method}} {{url}}</span> <form class="inline" method="post" action="/dev/offline/actions/remove-answer-offline"><input type="hidden" name="url" value="{{url}}"><input type="hidden" name="method" value="{{method}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="small" type="submit" title="Stop answering these requests offline; what was stored stays until purged">Remove</button></form></li>{{/answeredOfflineRows}}</ul>
        {{/hasAnsweredOffline}}

        {{> keptNoStoreSection}}

        {{#hasExtraRows}}
        <h2 id="extra-urls">Extra URLs <small>added to precache from the offline misses</small></h2>
        {{> extraTable}}
        {{/hasExtraRows}}

        {{#hasWriteQueue}}
        <h2 id="queued-writes">Queued writes <small>{{writeQueueNote}}; kept while their origin could not take them, delivered in order when it can</small></h2>
        {{#writeQueueGroups}}
        <h3><span class="mono">{{origin}}</span> <small>{{note}}</small></h3>
        {{#hasWriteRows}}
        <div class="scroll"><table>
        <thead><tr><th>#</th><th>Request</th><th>State</th><th>Queued</th><th>Attempts</th><th>Size</th><th>Last error</th><th></th></tr></thead>
        <tbody>
        {{#writeRows}}<tr><td class="num">{{id}}</td><td class="url mono">{{method}} {{url}}{{#terminal}} <span class="pill">terminal</span>{{/terminal}}</td><td><span class="pill {{state}}">{{state}}</span></td>
        <td><time datetime="{{createdISO}}" title="{{createdExact}}">{{createdRelative}}</time></td><td class="num">{{attempts}}</td><td class="num">{{size}}</td><td class="reason">{{#why}}{{why}}{{/why}}</td>
        <td><form class="inline" method="post" action="/dev/offline/actions/retry-write"><input type="hidden" name="id" value="{{id}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="small" type="submit" title="Deliver this write now">Retry now</button></form>
        <form class="inline" method="post" action="/dev/offline/actions/drop-write"><input type="hidden" name="id" value="{{id}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="danger small" type="submit" title="Remove this write; it will never be delivered">Drop</button></form></td></tr>
        {{/writeRows}}
        </tbody></table></div>
        {{/hasWriteRows}}
        {{/writeQueueGroups}}
        {{#writeQueuePageNote}}<nav class="pager" aria-label="Pages of queued writes">
        <span>{{#writeQueueFirstHref}}<a href="{{writeQueueFirstHref}}">← First</a>{{/writeQueueFirstHref}}</span>
        <span class="muted">{{writeQueuePageNote}}</span>
        <span>{{#writeQueueNextHref}}<a rel="next" href="{{writeQueueNextHref}}">Next →</a>{{/writeQueueNextHref}}</span>
        </nav>{{/writeQueuePageNote}}
        {{/hasWriteQueue}}

        {{#hasDeclared}}
        <h2 id="declared-requests">Declared requests <small>kept fresh from the config file's requests; answer the app when the origin cannot</small></h2>
        <div class="scroll"><table>
        <thead><tr><th>Name</th><th>Request</th><th>State</th><th>Last success</th><th>Size</th><th>Next run</th><th></th></tr></thead>
        <tbody>
        {{#declaredRows}}<tr><td>{{name}}</td><td class="url mono">{{method}} {{url}}{{#learned}}<div class="reason">the app's own query, learned <time datetime="{{learnedISO}}" title="{{learnedExact}}">{{learnedRelative}}</time> from {{learnedFrom}}</div>{{/learned}}</td><td><span class="pill {{state}}">{{state}}</span>{{#lastError}}<div class="reason">{{lastError}}</div>{{/lastError}}</td>
        <td>{{#lastSuccess}}<time datetime="{{successISO}}" title="{{successExact}}">{{successRelative}}</time>{{/lastSuccess}}{{^lastSuccess}}<span class="muted">never</span>{{/lastSuccess}}</td>
        <td class="num">{{size}}</td>
        <td>{{#nextRun}}<time datetime="{{nextISO}}" title="{{nextExact}}">{{nextRelative}}</time>{{/nextRun}}</td>
        <td><form class="inline" method="post" action="/dev/offline/actions/refresh-request"><input type="hidden" name="name" value="{{name}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="small" type="submit" title="Send this request now">Refresh now</button></form></td></tr>
        {{/declaredRows}}
        </tbody></table></div>
        {{/hasDeclared}}

        {{#hasPages}}
        <h2 id="pages">Pages <small>{{pagesNote}}</small></h2>
        <div class="scroll"><table>
        <thead><tr><th>Page</th><th>State</th><th>Reason</th><th>Precached</th></tr></thead>
        <tbody>
        {{#pageRows}}<tr><td class="url mono">{{url}}</td><td><span class="pill {{state}}">{{state}}</span></td><td class="reason">{{reason}}</td><td><time datetime="{{lastRunISO}}" title="{{lastRunExact}}">{{lastRunRelative}}</time></td></tr>
        {{/pageRows}}
        </tbody></table></div>
        {{/hasPages}}

        <h2 id="cache">Cache</h2>
        <div class="stats">
        <div class="stat"><b>{{entriesCount}}</b><span>entries</span></div>
        <div class="stat"><b>{{bytes}}</b><span>stored</span></div>
        <div class="stat"><b>{{precachedCount}}</b><span>precached · {{precachedBytes}}</span></div>
        <div class="stat"><b>{{runtimeCount}}</b><span>runtime · {{runtimeBytes}}</span></div>
        </div>
        <p>{{budgetText}}</p>
        {{#pageJobsText}}<p>{{pageJobsText}}</p>{{/pageJobsText}}
        {{#storeFailureText}}<p class="notice"><span class="pill failing">not storing</span> {{storeFailureText}}</p>{{/storeFailureText}}
        {{#budgetPercent}}<div class="bar{{#budgetFull}} full{{/budgetFull}}" role="img" aria-label="{{budgetText}}"><span style="width:{{budgetPercent}}%"></span></div>{{/budgetPercent}}
        <div class="actions">
        <a href="/dev/offline/entries">Browse and search all entries</a>
        <form class="inline" method="post" action="/dev/offline/actions/clear-runtime"><input type="hidden" name="return" value="{{returnPath}}"><button class="danger" type="submit">Clear runtime entries</button></form>
        </div>

        <h2 id="requests">Requests <small>since {{startedRelative}}{{#upstreamClient}}, fetching with {{upstreamClient}}{{/upstreamClient}}</small></h2>
        <div class="stats">
        <div class="stat"><b>{{hits}}</b><span>hits</span></div>
        <div class="stat"><b>{{misses}}</b><span>misses</span></div>
        <div class="stat"><b>{{offlineMissCount}}</b><span>of them offline misses</span></div>
        <div class="stat"><b>{{stale}}</b><span>stale answers</span></div>
        <div class="stat"><b>{{errors}}</b><span>errors</span></div>
        <div class="stat"><b>{{hitRatio}}</b><span>hit ratio</span></div>
        <div class="stat"><b>{{bypassed}}</b><span>tunnels and own pages</span></div>
        </div>

        <h2 id="upstream">Upstream hosts</h2>
        {{^hasHosts}}<p class="muted">No upstream host contacted yet.</p>{{/hasHosts}}
        {{#hasHosts}}
        <div class="scroll"><table>
        <thead><tr><th>Host</th><th>State</th><th class="num">Failures</th><th>Last error</th><th>Back-off until</th><th>Last answer</th></tr></thead>
        <tbody>
        {{#hostRows}}<tr><td class="mono">{{host}}</td><td><span class="pill {{state}}">{{state}}</span></td><td class="num">{{failures}}</td><td class="reason">{{lastError}}</td><td>{{#backoffUntil}}<time title="{{backoffExact}}">{{backoffUntil}}</time>{{/backoffUntil}}</td><td>{{#lastSuccess}}<time title="{{lastSuccessExact}}">{{lastSuccess}}</time>{{/lastSuccess}}</td></tr>
        {{/hostRows}}
        </tbody></table></div>
        {{/hasHosts}}
        {{#hasBrowserHosts}}
        <h3 id="browser-hosts">Hosts of the browser's own requests <small>no page asked for them</small></h3>
        <div class="scroll"><table>
        <thead><tr><th>Host</th><th>State</th><th class="num">Failures</th><th>Last error</th><th>Back-off until</th><th>Last answer</th></tr></thead>
        <tbody>
        {{#browserHostRows}}<tr><td class="mono">{{host}}</td><td><span class="pill {{state}}">{{state}}</span></td><td class="num">{{failures}}</td><td class="reason">{{lastError}}</td><td>{{#backoffUntil}}<time title="{{backoffExact}}">{{backoffUntil}}</time>{{/backoffUntil}}</td><td>{{#lastSuccess}}<time title="{{lastSuccessExact}}">{{lastSuccess}}</time>{{/lastSuccess}}</td></tr>
        {{/browserHostRows}}
        </tbody></table></div>
        {{/hasBrowserHosts}}

        <h2 id="entries">Entries <small>{{entriesNote}}</small></h2>
        <form class="search" method="get" action="/dev/offline/entries">
        <label>Search URLs<input type="search" name="q" placeholder="at least 3 characters, e.g. .js"></label>
        <button type="submit">Search</button>
        </form>
        {{^entryRows}}<p class="muted">The cache is empty.</p>{{/entryRows}}
        {{#hasEntryRows}}{{> entriesTable}}{{/hasEntryRows}}
        {{#moreEntries}}<p><a href="/dev/offline/entries?page=2">More entries →</a></p>{{/moreEntries}}

        <h2 id="recent">Recent requests <small>newest first, up to {{recentCapacity}}</small></h2>
        {{^recentRows}}<p class="muted">No request yet.</p>{{/recentRows}}
        {{#hasRecentRows}}
        <div class="scroll"><table>
        <thead><tr><th>Time</th><th>Method</th><th>URL</th><th class="num">Status</th><th>Outcome</th><th>Cache-Status</th><th class="num">ms</th></tr></thead>
        <tbody>
        {{#recentRows}}<tr><td><time datetime="{{timeISO}}" title="{{timeExact}}">{{timeRelative}}</time></td><td>{{method}}</td><td class="url mono">{{url}}</td><td class="num">{{status}}</td><td><span class="pill {{outcome}}">{{outcome}}</span></td><td class="mono small">{{cacheStatus}}</td><td class="num">{{milliseconds}}</td></tr>
        {{/recentRows}}
        </tbody></table></div>
        {{/hasRecentRows}}
        {{> foot}}
        """

    static let entries = """
        {{> head}}
        <body>
        {{> top}}
        <p class="small"><a href="/dev/offline">← Overview</a></p>
        <h1>Entries <small>{{entriesNote}}</small></h1>
        <form class="search" method="get" action="/dev/offline/entries">
        <label>Search URLs<input type="search" name="q" value="{{query}}" placeholder="at least 3 characters, e.g. .js"></label>
        <label>Sort<select name="sort">{{#sortOptions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/sortOptions}}</select></label>
        <button type="submit">Search</button>
        {{#query}}<a class="small" href="/dev/offline/entries">Clear search</a>{{/query}}
        </form>
        <p>{{resultText}}</p>
        {{#tooShort}}<p class="notice">Type at least {{minimumSearchLength}} characters to search.</p>{{/tooShort}}
        {{#noResult}}<p class="notice">No entry’s URL contains “{{query}}”.</p>{{/noResult}}
        {{#pastEnd}}<p class="notice">Page {{page}} is past the end of the list. <a href="{{firstHref}}">Go to the first page</a>.</p>{{/pastEnd}}
        {{#hasEntryRows}}{{> entriesTable}}{{/hasEntryRows}}
        <nav class="pager" aria-label="Pages">
        <span>{{#previousHref}}<a rel="prev" href="{{previousHref}}">← Previous</a>{{/previousHref}}</span>
        <span class="muted">Page {{page}}{{#pageCount}} of {{pageCount}}{{/pageCount}}</span>
        <span>{{#nextHref}}<a rel="next" href="{{nextHref}}">Next →</a>{{/nextHref}}</span>
        </nav>
        {{> foot}}
        """

    static let game = """
        {{> head}}
        <body>
        {{> top}}
        <p class="small"><a href="/dev/offline">← All games</a></p>
        <h1><span class="mark">{{mark}}</span> {{name}} <span class="pill {{state}}">{{readiness}}</span></h1>
        <p class="summary">{{verdict}}</p>
        {{#job}}<p class="flash" role="status">Precache job <span class="mono">{{jobID}}</span>: {{jobState}}. <a href="{{jobHref}}">Job status (JSON)</a> · <a href="{{detail}}?job={{jobID}}">reload this page</a></p>{{/job}}
        <dl class="facts">
        <dt>Root</dt><dd class="mono">{{root}}</dd>
        <dt>Manifest</dt><dd class="mono">{{manifestURL}}</dd>
        <dt>Slug</dt><dd class="mono">{{slug}}</dd>
        <dt>Files</dt><dd>{{facts}}</dd>
        <dt>Last precache</dt><dd><time datetime="{{lastPrecacheISO}}" title="{{lastPrecacheExact}}">{{lastPrecacheRelative}}</time> ({{lastPrecacheExact}})</dd>
        {{#lastError}}<dt>Last error</dt><dd>{{lastError}}</dd>{{/lastError}}
        </dl>
        <div class="actions">
        <form class="inline" method="post" action="/dev/offline/actions/precache-game"><input type="hidden" name="game" value="{{slug}}"><input type="hidden" name="return" value="{{detail}}"><button type="submit">Precache again</button></form>
        <form class="inline" method="post" action="/dev/offline/actions/purge-game"><input type="hidden" name="game" value="{{slug}}"><input type="hidden" name="return" value="{{detail}}"><button class="danger" type="submit">Purge this game</button></form>
        <a class="small" href="{{detail}}.json">JSON</a>
        </div>
        {{#offlineMissNote}}
        <h2>Offline misses <small>since the last precache</small></h2>
        {{> missTable}}
        {{/offlineMissNote}}
        {{#hasExtraRows}}
        <h2>Extra URLs <small>precached with the game</small></h2>
        {{> extraTable}}
        {{/hasExtraRows}}
        <h2>Files <small>{{filesNote}}</small></h2>
        {{^fileRows}}<p class="muted">The manifest lists no file{{#lastError}}, or could not be read{{/lastError}}.</p>{{/fileRows}}
        {{#hasFileRows}}
        <div class="scroll"><table>
        <thead><tr><th>File</th><th>State</th><th>Reason</th><th class="num">Size</th></tr></thead>
        <tbody>
        {{#fileRows}}<tr><td class="url mono">{{url}}</td><td><span class="pill {{state}}">{{state}}</span></td><td class="reason">{{reason}}</td><td class="num">{{size}}</td></tr>
        {{/fileRows}}
        </tbody></table></div>
        {{/hasFileRows}}
        {{> foot}}
        """

    static let notice = """
        {{> head}}
        <body>
        {{> top}}
        <h1>{{heading}}</h1>
        {{#paragraphs}}<p>{{.}}</p>
        {{/paragraphs}}
        <p><a href="/dev/offline">← Back to /dev/offline</a></p>
        {{> foot}}
        """
}
