//! The task pools of the apps that pose crowds.

use bevy::app::{TaskPoolOptions, TaskPoolPlugin, TaskPoolThreadAssignmentPolicy};

/// Task pools that give every core to compute, where players pose over
/// all cores. Bevy's defaults keep a quarter of the cores (at least one
/// each) for I/O and async compute: on two cores that leaves compute one
/// thread, and a parallel pass runs on one core while the other idles.
/// The apps here load nothing while they run, so those pools idle anyway.
pub fn all_cores() -> TaskPoolPlugin {
    let compute = TaskPoolThreadAssignmentPolicy {
        min_threads: bevy::tasks::available_parallelism(),
        ..TaskPoolOptions::default().compute
    };
    TaskPoolPlugin { task_pool_options: TaskPoolOptions { compute, ..TaskPoolOptions::default() } }
}
