// Plug-ins of this project: `attractor run`, `resume`, `validate`, `serve` and the editor's language server
// (`attractor lsp`) load this file.
//
// A custom handler: nodes with type="announce" run it. It returns an outcome, notes for the run directory and values
// for the run's context. With @attractor/engine installed in this folder, `defineHandler` from it also declares the
// attributes a handler reads and the outcomes it returns, so that `attractor validate` checks them.
const announce = {
  async execute({ node, context }) {
    const goal = context.getString('graph.goal');
    return {
      status: 'success',
      notes: `announced: ${goal}`,
      contextUpdates: { [`${node.id}.message`]: `Done: ${goal}` },
    };
  },
};

export default { handlers: { announce } };
