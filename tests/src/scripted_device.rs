//! A scripted [`Device`] for agent-loop tests: a screen of named boxes kept in memory, a
//! reaction per tap / type / key, a log of every input the loop sent (with the exact px),
//! and failure injection (`not_delivered` / `delivery_uncertain`) per input.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use argus_perception::tree::{Node, Tree};
use argus_perception::{Element, Rect, Role, Screen, Tri};
use argus_protocol::{Key, Platform};
use argus_worker::device::{Act, ActError, Capture, DeviceError, Input, Observe, System};
use async_trait::async_trait;

/// One thing on the fake screen.
#[derive(Debug, Clone)]
pub struct Item {
    pub role: Role,
    pub name: String,
    pub value: Option<String>,
    pub password: bool,
    /// Box in device px (DPR 1).
    pub rect: Rect,
}

impl Item {
    /// An item.
    pub fn new(role: Role, name: &str, rect: Rect) -> Item {
        Item {
            role,
            name: name.into(),
            value: None,
            password: false,
            rect,
        }
    }
}

/// An input the loop sent, as the device got it.
#[derive(Debug, Clone, PartialEq)]
pub enum Sent {
    Tap { name: String, x: f64, y: f64 },
    Type { name: String, text: String },
    Key(Key),
}

/// What a failure injection makes the next input return.
#[derive(Debug, Clone, Copy)]
pub enum Inject {
    NotDelivered,
    /// The input lands, but the device reports it as uncertain.
    Uncertain,
}

type React = Box<dyn FnMut(&mut Vec<Item>, &Sent) + Send>;

/// Shared view of the device for the test.
#[derive(Default)]
pub struct Log {
    /// Inputs that reached the screen.
    pub sent: Vec<Sent>,
    /// Every input attempt, including injected failures.
    pub attempts: u32,
}

/// The scripted device.
pub struct ScriptedDevice {
    pub items: Vec<Item>,
    pub size: (u32, u32),
    pub log: Arc<Mutex<Log>>,
    pub inject: VecDeque<Option<Inject>>,
    react: React,
}

impl ScriptedDevice {
    /// A device of `size` px showing `items`; `react` changes the screen after each input.
    pub fn new(
        size: (u32, u32),
        items: Vec<Item>,
        react: impl FnMut(&mut Vec<Item>, &Sent) + Send + 'static,
    ) -> ScriptedDevice {
        ScriptedDevice {
            items,
            size,
            log: Arc::default(),
            inject: VecDeque::new(),
            react: Box::new(react),
        }
    }

    fn input(&mut self, s: Sent) -> Result<(), ActError> {
        let mut log = self.log.lock().expect("log");
        log.attempts += 1;
        match self.inject.pop_front().flatten() {
            Some(Inject::NotDelivered) => {
                return Err(ActError::not_delivered("injected: not delivered"))
            }
            Some(Inject::Uncertain) => {
                log.sent.push(s.clone());
                drop(log);
                (self.react)(&mut self.items, &s);
                return Err(ActError::uncertain("injected: no acknowledgement"));
            }
            None => {}
        }
        log.sent.push(s.clone());
        drop(log);
        (self.react)(&mut self.items, &s);
        Ok(())
    }

    fn name_at(&self, x: f64, y: f64) -> String {
        self.items
            .iter()
            .filter(|i| i.rect.contains_point(x, y))
            .min_by(|a, b| a.rect.area().total_cmp(&b.rect.area()))
            .map(|i| i.name.clone())
            .unwrap_or_default()
    }
}

/// A solid PNG of `w`×`h` px.
pub fn solid_png(w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        if let Ok(mut wr) = enc.write_header() {
            let _ = wr.write_image_data(&vec![230u8; (w * h * 3) as usize]);
        }
    }
    out
}

#[async_trait]
impl System for ScriptedDevice {
    fn platform(&self) -> Platform {
        Platform::Android
    }

    async fn begin(&mut self) -> Result<(), DeviceError> {
        Ok(())
    }

    async fn end(&mut self) -> Result<(), DeviceError> {
        Ok(())
    }
}

#[async_trait]
impl Observe for ScriptedDevice {
    fn screen_px(&self) -> (u32, u32) {
        self.size
    }

    async fn capture(&mut self) -> Result<Capture, DeviceError> {
        let (w, h) = (self.size.0 as f64, self.size.1 as f64);
        let mut root = Node::new(Role::Other, "root", "");
        root.bounds = Some(Rect::new(0.0, 0.0, w, h));
        let mut nodes = vec![root];
        for it in &self.items {
            let mut n = Node::new(it.role, it.role.as_str(), &it.name);
            n.bounds = Some(it.rect);
            n.parent = Some(0);
            n.value = it.value.clone();
            n.enabled = Tri::Yes;
            if it.password {
                n.password = Tri::Yes;
            }
            if it.role == Role::Textfield {
                n.editable = Tri::Yes;
                n.placeholder = Some(it.name.clone());
            }
            nodes.push(n);
        }
        Ok(Capture {
            tree: Tree { nodes },
            screen: Screen {
                width: w,
                height: h,
                dpr: 1.0,
            },
            blank: false,
        })
    }

    async fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        Ok(solid_png(self.size.0, self.size.1))
    }
}

#[async_trait]
impl Act for ScriptedDevice {
    async fn tap(&mut self, el: &Element) -> Result<(), ActError> {
        let (x, y) = el.bbox_px.center();
        let name = self.name_at(x, y);
        self.input(Sent::Tap { name, x, y })
    }

    async fn type_text(&mut self, el: &Element, text: &str) -> Result<(), ActError> {
        let (x, y) = el.bbox_px.center();
        let name = self.name_at(x, y);
        self.input(Sent::Type {
            name,
            text: text.into(),
        })
    }
}

#[async_trait]
impl Input for ScriptedDevice {
    async fn key(&mut self, key: Key) -> Result<(), ActError> {
        self.input(Sent::Key(key))
    }
}

/// Runs `spec` on `dev` in-process through the worker's executor, with a worker whose model
/// endpoints list the one the job names ([`crate::chat_stub::agent_env_for`]), screenshots in
/// a throwaway folder and events in memory; returns the run as `RunDetail::apply` folds its
/// events. `cancel` is the run's cancel flag.
pub async fn run_scripted(
    spec: argus_protocol::JobSpec,
    dev: &mut ScriptedDevice,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> argus_protocol::RunDetail {
    let agent = crate::chat_stub::agent_env_for(&spec);
    run_scripted_with(spec, dev, cancel, agent).await
}

/// [`run_scripted`] with the worker's agent environment given (clones of one `AgentEnv`
/// share what the worker learnt about an endpoint across jobs).
pub async fn run_scripted_with(
    spec: argus_protocol::JobSpec,
    dev: &mut ScriptedDevice,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
    agent: argus_worker::model::AgentEnv,
) -> argus_protocol::RunDetail {
    let dir = std::env::temp_dir().join(format!("argus-scripted-{}", uuid::Uuid::new_v4()));
    let sink = std::sync::Arc::new(argus_worker::run::events::MemorySink::default());
    let input = argus_worker::executor::RunInput {
        run_id: uuid::Uuid::new_v4(),
        attempt_id: uuid::Uuid::new_v4(),
        device_id: "scripted".into(),
        spec: spec.clone(),
        agent,
        pixel: Default::default(),
        replay: None,
        live: None,
    };
    argus_worker::executor::execute(
        &input,
        dev,
        std::sync::Arc::new(argus_infra::DirStore::new(dir.clone())),
        sink.clone(),
        cancel,
    )
    .await;
    let mut d = argus_protocol::RunDetail::new(
        input.run_id,
        uuid::Uuid::new_v4(),
        spec,
        chrono::Utc::now(),
    );
    for ev in sink.events.lock().expect("events").iter() {
        d.apply(ev);
    }
    let _ = std::fs::remove_dir_all(dir);
    d
}
