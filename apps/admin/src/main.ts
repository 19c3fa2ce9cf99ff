import "./styles.css";
import { ConsoleApp } from "./app.ts";

const root = document.getElementById("app");
if (root) new ConsoleApp(root).start();
