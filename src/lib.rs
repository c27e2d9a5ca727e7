pub mod catalog;
