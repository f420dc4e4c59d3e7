//! The review text of a proposal, prepared on a worker thread so the serve loop keeps polling
//! (keepalives, new connections, Ctrl-C) while the file is read and the diff computed.

use super::diff_view::{self, Limits, View};
use super::file_read::{MAX_FILE_BYTES, read_regular};
use idelink_core::ToolCallId;
use idelink_mio::Waker;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};

/// A proposal to prepare.
pub struct Job {
    /// The call it answers.
    pub id: ToolCallId,
    /// The file (absolute).
    pub path: String,
    /// The label shown for it (relative to the workspace when inside it).
    pub label: String,
    /// The proposed text.
    pub proposed: Arc<str>,
    /// Paint the diff.
    pub colour: bool,
}

/// A prepared review.
pub struct Prepared {
    /// The call it answers.
    pub id: ToolCallId,
    /// The diff (or summary) to show and the file's text it was made from (empty for a file
    /// that does not exist, as the CLI reads it: the accept's `originalText`), or why the
    /// proposal cannot be reviewed (the call then fails with that message).
    pub view: Result<(View, String), String>,
}

/// The loop's handle on the worker.
pub struct Preparer {
    jobs: Sender<Job>,
    done: Receiver<Prepared>,
}

impl Preparer {
    /// Starts the worker; it wakes the host's poll whenever a review is ready.
    pub fn spawn(waker: Arc<Waker>) -> std::io::Result<Preparer> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let (send, done) = mpsc::channel();
        std::thread::Builder::new()
            .name("idelink-diff".into())
            .spawn(move || {
                for job in queue {
                    let view = prepare(&job);
                    if send.send(Prepared { id: job.id, view }).is_err() {
                        return;
                    }
                    let _ = waker.wake();
                }
            })?;
        Ok(Preparer { jobs, done })
    }

    /// Queues a proposal; its review comes back from [`try_take`](Self::try_take).
    pub fn request(&self, job: Job) {
        let _ = self.jobs.send(job);
    }

    /// A review that is ready, if any.
    pub fn try_take(&self) -> Option<Prepared> {
        self.done.try_recv().ok()
    }
}

/// The file on disk (a regular file, or none yet) diffed against the proposal, and its text.
fn prepare(job: &Job) -> Result<(View, String), String> {
    let old = read_regular(Path::new(&job.path), MAX_FILE_BYTES)?
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    let view = diff_view::render(
        &job.label,
        old.as_deref(),
        &job.proposed,
        job.colour,
        &Limits::DEFAULT,
    );
    Ok((view, old.unwrap_or_default()))
}
