
@@codec@@

-- stdout moved to stderr before any elaboration of the program's (a constructor runs before adainit): what the
-- program prints never reaches the replies, which go to the descriptor stdout was
package Reward_Split_Stdout is
   Replies : Integer;   -- no initial value: no elaboration code overwrites what Move set
   procedure Move;
   pragma Linker_Constructor (Move);
end Reward_Split_Stdout;

with Interfaces.C; use Interfaces.C;
package body Reward_Split_Stdout is
   function Dup (Fd : int) return int with Import, Convention => C, External_Name => "dup";
   function Dup2 (Fd, To : int) return int with Import, Convention => C, External_Name => "dup2";

   procedure Move is
   begin
      Replies := Integer (Dup (1));
      if Dup2 (2, 1) /= 1 then
         Replies := -1;
      end if;
   end Move;
end Reward_Split_Stdout;

-- a child of the prompt's package: its types, and what its spec's context clause makes visible, are this one's
pragma Ada_2022;
with Ada.Exceptions;
with Reward_Split_Wire;
with Reward_Split_Stdout;
procedure @@package@@.Reward_Split_Serve is
   Reward_Split_Calls : Reward_Split_Wire.Reader := (Fd => 0, others => <>);
   Reward_Split_Value : aliased Reward_Split_Wire.Buffer;
   Reward_Split_Reply : Reward_Split_Wire.Buffer;
begin
   if Reward_Split_Stdout.Replies < 0 then
      raise Program_Error with "stdout could not be moved";
   end if;
   while not Reward_Split_Wire.At_End (Reward_Split_Calls) loop
      if Reward_Split_Wire.Get_Count (Reward_Split_Calls, 'C') /= 0@@count@@ then
         raise Constraint_Error with "a call with another number of arguments";
      end if;
      Reward_Split_Wire.Clear (Reward_Split_Reply);
      declare
@@get@@
      begin
         Reward_Split_Wire.Clear (Reward_Split_Value);
         @@ret@@'Output (Reward_Split_Value'Access, @@entry@@ @@open@@@@arguments@@@@close@@);
         Reward_Split_Wire.Append (Reward_Split_Reply, "R");
         Reward_Split_Wire.Put_Value (Reward_Split_Reply, Reward_Split_Value);
         Reward_Split_Wire.Append (Reward_Split_Reply, Reward_Split_Wire.Counted ('l', 0@@count@@));
@@reply@@
      exception
         when Error : others =>    -- its exception's name and message
            Reward_Split_Wire.Clear (Reward_Split_Reply);
            Reward_Split_Wire.Append (Reward_Split_Reply, "X");
            Reward_Split_Wire.Put_String (Reward_Split_Reply, Ada.Exceptions.Exception_Name (Error));
            Reward_Split_Wire.Put_String (Reward_Split_Reply, Ada.Exceptions.Exception_Message (Error));
      end;
      Reward_Split_Wire.Send (Reward_Split_Stdout.Replies, Reward_Split_Reply);
   end loop;
end @@package@@.Reward_Split_Serve;

with @@package@@.Reward_Split_Serve;
procedure Main is
begin
   @@package@@.Reward_Split_Serve;
end Main;
