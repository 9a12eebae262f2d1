// The projects domain's tool: a project with its tasks and linked refs.
import { Type } from 'typebox';
import { inReach } from '../entities/handler.ts';
import { IdArgs, type Tool, tool } from '../mcp/tool.ts';
import { findProject, projectLinks } from './store.ts';

const ProjectWithLinks = Type.Object({
  project: Type.Ref('Project'),
  tasks: Type.Array(Type.Ref('Task')),
  refs: Type.Array(Type.Ref('Ref')),
});

export const projectTools: Tool[] = [
  tool({
    name: 'get_project',
    title: 'Get a project',
    description: 'A project with its tasks and linked refs.',
    input: IdArgs,
    output: ProjectWithLinks,
    readOnly: true,
    async run(args, ctx) {
      const project = inReach(ctx.principal, await findProject(ctx.sql, args.id), 'project');
      return { project, ...(await projectLinks(ctx.sql, project.id)) };
    },
  }),
];
