//! Work spread over a bounded number of threads, results kept in task order: what `sync`
//! downloads, what `publish` of a tree of squads checks and pushes, what `index build` reads
//! from a registry, the packages `list` reads, the packages of a folder `validate` and `audit`
//! check, a large package's prompts and the item-by-item `fsync`s of `fs/durable.rs` all run
//! through [`run_jobs`], so every parallel loop of squad has one bound and one way of keeping
//! its order.

/// The cores this process may run on: how many packages of a folder are checked at once.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// One unit of work for [`run_jobs`].
pub type Task<'t, T> = Box<dyn FnOnce() -> T + Send + 't>;

/// Runs `tasks` on at most `jobs` threads and returns their results in task order.
pub fn run_jobs<'t, T: Send>(jobs: usize, tasks: Vec<Task<'t, T>>) -> Vec<T> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let count = tasks.len();
    let slots: Vec<Mutex<Option<Task<'t, T>>>> = tasks
        .into_iter()
        .map(|task| Mutex::new(Some(task)))
        .collect();
    let results: Vec<Mutex<Option<T>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let workers = jobs.clamp(1, count.max(1));
    let work = || {
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= count {
                return;
            }
            let task = slots[index].lock().ok().and_then(|mut slot| slot.take());
            if let Some(task) = task {
                let result = task();
                if let Ok(mut slot) = results[index].lock() {
                    *slot = Some(result);
                }
            }
        }
    };
    std::thread::scope(|scope| {
        // The calling thread is one of the workers, so one worker needs no thread of its own;
        // a thread the system refuses leaves its share to those that started and to it.
        for _ in 1..workers {
            let _ = std::thread::Builder::new().spawn_scoped(scope, work);
        }
        work();
    });
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .expect("every task ran to completion")
        })
        .collect()
}

/// `first` on a thread of its own while the calling thread does `second`, and both results;
/// one after the other where no thread can be started. A panic in either is the caller's.
pub fn join<A: Send, B>(first: impl FnOnce() -> A + Send, second: impl FnOnce() -> B) -> (A, B) {
    let first = std::sync::Mutex::new(Some(first));
    let run_first = || {
        let first = first.lock().ok().and_then(|mut slot| slot.take());
        first.map(|first| first())
    };
    std::thread::scope(|scope| {
        let started = std::thread::Builder::new()
            .spawn_scoped(scope, run_first)
            .ok();
        let second = second();
        let first = match started {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => run_first(),
        };
        (first.expect("the first work runs exactly once"), second)
    })
}

/// [`run_jobs`] over the items of a slice: `work` runs once per item, at most `jobs` at once.
pub fn map_jobs<'t, I: Sync, T: Send>(
    jobs: usize,
    items: &'t [I],
    work: &'t (dyn Fn(&'t I) -> T + Sync),
) -> Vec<T> {
    let tasks: Vec<Task<'t, T>> = items
        .iter()
        .map(|item| Box::new(move || work(item)) as Task<'t, T>)
        .collect();
    run_jobs(jobs, tasks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn jobs_run_in_parallel_and_results_keep_their_order() {
        let running = std::sync::atomic::AtomicUsize::new(0);
        let most = std::sync::atomic::AtomicUsize::new(0);
        let tasks: Vec<Task<'_, usize>> = (0..12usize)
            .map(|index| {
                let (running, most) = (&running, &most);
                Box::new(move || {
                    use std::sync::atomic::Ordering;
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(20));
                    running.fetch_sub(1, Ordering::SeqCst);
                    index * 2
                }) as Task<'_, usize>
            })
            .collect();
        let results = run_jobs(4, tasks);
        assert_eq!(results, (0..12).map(|index| index * 2).collect::<Vec<_>>());
        let most = most.load(std::sync::atomic::Ordering::SeqCst);
        assert!((2..=4).contains(&most), "{most} at once");
    }

    #[test]
    fn join_runs_both_at_once_and_gives_both_results() {
        let barrier = std::sync::Barrier::new(2);
        // Both sides wait for each other: this returns only if they ran at the same time.
        let (first, second) = join(
            || {
                barrier.wait();
                "first"
            },
            || {
                barrier.wait();
                2
            },
        );
        assert_eq!((first, second), ("first", 2));
    }

    #[test]
    fn one_job_runs_on_the_calling_thread() {
        let caller = std::thread::current().id();
        let tasks: Vec<Task<'_, bool>> = (0..3)
            .map(|_| Box::new(move || std::thread::current().id() == caller) as Task<'_, bool>)
            .collect();
        assert_eq!(run_jobs(1, tasks), vec![true, true, true]);
    }

    #[test]
    fn map_jobs_keeps_the_items_order() {
        let items: Vec<u32> = (0..20).collect();
        assert_eq!(
            map_jobs(3, &items, &|item| item + 1),
            (1..21).collect::<Vec<_>>()
        );
    }
}
