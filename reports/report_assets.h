// The report page's inline style sheet and scripts. They are compiled into the program so
// the page is one self-contained file: no network, no files beside it.
#pragma once

namespace lockstep::reports {

// The style sheet (goes inside <style>).
extern const char* const kReportCss;

// Runs first, in <head>: records every script error so the page can show it and a headless
// browser test can find it (window.lockstepErrors, and the #script-errors element).
extern const char* const kErrorCaptureJs;

// Draws the timeline from the JSON in #timeline-data into #timeline-svg, wires the zoom
// controls, and finally sets document.body.dataset.ready = "ok" ("error" if anything failed).
extern const char* const kTimelineJs;

}  // namespace lockstep::reports
